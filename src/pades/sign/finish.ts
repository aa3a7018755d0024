/**
 * Second half of the interrupted signing flow: wrap the signature value in the CMS (CMS module)
 * and write it into the /Contents placeholder reserved by preparePades. The prepared bytes are
 * copied, not changed, so a failed finish can be retried with the same PreparedPades (unless
 * `inPlace` says the caller needs them no more).
 */
import { embedContents } from '../pdf';
import { assembleCms } from '../cms';
import type { PadesFinishOptions, PreparedPades } from './types';

export function finishPades(prepared: PreparedPades, signatureValue: Uint8Array, options?: PadesFinishOptions): Uint8Array {
  const cms = assembleCms({
    signedAttributes: prepared.signedAttributes,
    signatureValue,
    certificateChain: prepared.certificateChain,
    algorithm: prepared.algorithm,
    timestampToken: options?.timestampToken ?? null,
  });
  const out = options?.inPlace ? prepared.pdf : prepared.pdf.slice();
  // Throws SigningError when the CMS is larger than the room reserved from estimateCmsSize.
  embedContents(out, prepared.contentsOffset, prepared.contentsHexLength, cms);
  return out;
}
