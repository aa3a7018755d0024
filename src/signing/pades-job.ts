import { createHash } from 'node:crypto';
import { SigningError } from '../errors/errors';
import { finishPades, preparePades, verifyPades } from '../pades';
import { algorithmOfCertificate, ecdsaRawToDer } from '../pades/cms';
import { fillStampText } from '../pades/stamp-text';
import type { StampSpec } from '../pades/types';
import type { CachedDesign } from '../store/catalog-types';
import { fetchTimestampToken } from './tsa-client';
import type { Job } from './job-types';

/** The signing date as it appears on stamps: unambiguous and locale-free. */
export function formatStampDate(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function resolveStamp(design: CachedDesign, values: Record<string, string | undefined>): StampSpec {
  return { ...design.stamp, lines: design.stamp.lines.map((l) => ({ text: fillStampText(l.text, values), size: l.size })) };
}

/**
 * PAdES signing in the two steps the engine defines: prepare (PDF -> digest of the signed
 * attributes), the chip signs the digest, finish (signature -> signed PDF). The output is
 * verified before DONE (CONTRACT "Before DONE the service verifies the signature it produced").
 */
export const runPadesJob: Job = async (entry, deps) => {
  const credential = deps.findCredential(entry.credential_key);
  if (!credential || credential.type !== 'pades' || !credential.certificate_chain || !credential.chip_key_id) {
    throw new SigningError(`credential ${entry.credential_key} is no longer a PAdES credential in the cache`);
  }
  const pdf = await deps.readWorkFile(entry.request_id);
  if (!pdf) throw new SigningError('the document of this request is no longer on disk; submit it again');
  const p = entry.params as {
    design_key: string | null;
    variables: Record<string, string>;
    reason: string | null;
    location: string | null;
    signer_name: string | null;
  };
  const signingTime = deps.now();
  let stamp: StampSpec | null = null;
  if (p.design_key) {
    const design = deps.findDesign(p.design_key);
    if (!design) throw new SigningError(`design ${p.design_key} is no longer in the cache`);
    stamp = resolveStamp(design, {
      signer_name: p.signer_name ?? undefined,
      reason: p.reason ?? undefined,
      location: p.location ?? undefined,
      ...p.variables,
      date: formatStampDate(signingTime),
    });
  }
  const certificateChain = credential.certificate_chain.map((c) => new Uint8Array(Buffer.from(c, 'base64')));
  const prepared = await preparePades({
    pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength),
    certificateChain,
    signingTime,
    reason: p.reason,
    location: p.location,
    signerName: p.signer_name,
    stamp,
    reserveTimestamp: deps.tsaUrl !== null,
  });
  const chip = await deps.getChip();
  const raw = await chip.signDigest(credential.chip_key_id, prepared.digest);
  const signatureValue = algorithmOfCertificate(certificateChain[0]!) === 'p256' ? ecdsaRawToDer(raw) : raw;
  const timestampToken = deps.tsaUrl ? await fetchTimestampToken(deps.tsaUrl, signatureValue) : null;
  const signed = finishPades(prepared, signatureValue, { timestampToken });
  verifyPades(signed);
  return {
    result: { bytes: signed.length, sha256: createHash('sha256').update(signed).digest('hex'), level: timestampToken ? 'B-T' : 'B-B' },
    digestHex: Buffer.from(prepared.digest).toString('hex'),
    persist: () => deps.writeResult(entry.request_id, signed),
  };
};
