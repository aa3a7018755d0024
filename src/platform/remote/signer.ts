/**
 * A digest signed by the platform of the current pairing (PLATFORM.md "Remote signing"): it goes
 * out labelled as the request's kind says (`kind`, `digest_algorithm`, `chain_id`), the answer
 * comes back by push or poll (results.ts) in the shape the label names, and is handed back raw
 * (r‖s for ECDSA). Nothing here trusts it: the kind checks it against the credential before
 * the request can be DONE (signing/kinds/).
 */
import { PlatformError, SigningError } from '../../domain/errors';
import { ecdsaDerToRaw } from '../../pades/cms';
import { PairingRevokedError, type RemotePlatform } from './client';
import type { CachedCredential } from '../../store/catalog-types';
import type { PlatformResultHub } from './results';

export interface PlatformSigningDeps {
  /** The platform of the current pairing; null when unpaired or revoked. */
  platform: () => RemotePlatform | null;
  hub: PlatformResultHub;
}

/**
 * What the platform is told a digest is (PLATFORM.md "Remote signing": `kind`, `digest_algorithm`,
 * `chain_id`) and how its answer comes back: `signature` (`signature_base64`, ECDSA as DER
 * SEQUENCE{r,s}) or `recoverable` (`r`, `s`, `recovery_id`). A request's kind gives it from its
 * table (signing/kinds/); the platform client compares no kind's name.
 */
export interface DigestLabel {
  kind: string;
  digestAlgorithm: 'sha256' | 'keccak256';
  chainId: number | null;
  answer: 'signature' | 'recoverable';
}

/** The engine contract's request, in the platform's terms (signing/engine.ts DigestRequest). */
export interface PlatformDigest {
  requestId: string;
  credential: CachedCredential;
  digest: Uint8Array;
  /** ECDSA answers come as DER SEQUENCE{r,s} (PLATFORM.md) and go back as r‖s. */
  ecdsa: boolean;
  label: DigestLabel;
  /** The job runs again after a restart: the digest may already be with the platform. */
  resumed: boolean;
  signal: AbortSignal;
}

export async function signOnPlatform(deps: PlatformSigningDeps, o: PlatformDigest): Promise<{ signature: Uint8Array; recoveryId?: 0 | 1 }> {
  const platform = deps.platform();
  if (!platform) throw new PairingRevokedError();
  const submission = {
    request_id: o.requestId,
    credential_key: o.credential.credential_key,
    kind: o.label.kind,
    digest_hex: Buffer.from(o.digest).toString('hex'),
    chain_id: o.label.chainId,
    digest_algorithm: o.label.digestAlgorithm,
  };
  const submit = () => platform.submitSign(submission, o.signal);
  // A resumed request may already be with the platform (submitted before the restart): ask
  // first, and submit only if the platform does not know it (a poll answering 404).
  o.signal.throwIfAborted();
  if (!o.resumed) await submit();
  const result = await deps.hub.wait(o.requestId, { signal: o.signal, poll: (signal) => platform.pollResult(o.requestId, o.label.answer, signal), resubmit: submit, resumed: o.resumed });
  if (result.status === 'ERROR') throw new PlatformError(`the platform did not sign: ${result.error}`);
  if ('r' in result) return { signature: Buffer.concat([Buffer.from(result.r.slice(2), 'hex'), Buffer.from(result.s.slice(2), 'hex')]), recoveryId: result.recoveryId };
  if (!o.ecdsa) return { signature: result.signature };
  try {
    return { signature: ecdsaDerToRaw(result.signature) };
  } catch (cause) {
    throw new SigningError(`the platform's signature is not an ECDSA-Sig-Value (DER SEQUENCE{r,s}); nothing was signed`, { cause });
  }
}
