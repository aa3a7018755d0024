/**
 * Signing with `engine: "platform"` credentials (PLATFORM.md "Remote signing"): the digest goes to
 * the platform, the answer comes back by push or poll (results.ts), and nothing the
 * platform sends is trusted: a PAdES signature value must verify with the credential's
 * certificate, a blockchain signature must recover to the credential's address, before the
 * request can be DONE.
 */
import { PlatformError, SigningError } from '../../domain/errors';
import { recoverAddress, SECP256K1_N } from '../../evm';
import { signatureValueMatches } from '../../pades/cms';
import { PairingRevokedError, type RemotePlatform } from './client';
import type { CachedCredential } from '../../store/catalog-types';
import type { FinalPlatformResult, PlatformResultHub } from './results';

export interface PlatformSigningDeps {
  /** The platform of the current pairing; null when unpaired or revoked. */
  platform: () => RemotePlatform | null;
  hub: PlatformResultHub;
}

interface Common {
  requestId: string;
  credential: CachedCredential;
  /** The job runs again after a restart: the digest may already be with the platform. */
  resumed: boolean;
  signal: AbortSignal;
}

async function obtain(deps: PlatformSigningDeps, o: Common & { kind: 'pades' | 'blockchain'; digestHex: string; chainId: number | null }): Promise<FinalPlatformResult> {
  const platform = deps.platform();
  if (!platform) throw new PairingRevokedError();
  const submission = { request_id: o.requestId, credential_key: o.credential.credential_key, kind: o.kind, digest_hex: o.digestHex, chain_id: o.chainId };
  const submit = () => platform.submitSign(submission, o.signal);
  // A resumed request may already be with the platform (submitted before the restart): ask
  // first, and submit only if the platform does not know it (a poll answering 404).
  o.signal.throwIfAborted();
  if (!o.resumed) await submit();
  const result = await deps.hub.wait(o.requestId, { signal: o.signal, poll: (signal) => platform.pollResult(o.requestId, o.kind, signal), resubmit: submit, resumed: o.resumed });
  if (result.status === 'ERROR') throw new PlatformError(`the platform did not sign: ${result.error}`);
  return result;
}

/** The signature value for a CMS SignerInfo: RSA raw, ECDSA as DER SEQUENCE{r,s} (PLATFORM.md). */
export async function signPadesOnPlatform(deps: PlatformSigningDeps, o: Common & { digest: Uint8Array; signedAttributes: Uint8Array }): Promise<Uint8Array> {
  const result = await obtain(deps, { ...o, kind: 'pades', digestHex: Buffer.from(o.digest).toString('hex'), chainId: null });
  if (!('signature' in result)) throw new PlatformError('the platform answered a PAdES request with a blockchain signature');
  const signer = Buffer.from(o.credential.certificate_chain![0]!, 'base64');
  if (!signatureValueMatches(o.signedAttributes, result.signature, signer)) {
    throw new SigningError(`the platform's signature does not verify with the certificate of credential ${o.credential.credential_key} (signed with another key?); the document was not signed`);
  }
  return result.signature;
}

/** r, s (low-s, EIP-2) and the recovery id, checked to recover to the credential's address. */
export async function signEvmOnPlatform(deps: PlatformSigningDeps, o: Common & { digest: Uint8Array; chainId: number | null }): Promise<{ r: bigint; s: bigint; yParity: 0 | 1 }> {
  const result = await obtain(deps, { ...o, kind: 'blockchain', digestHex: Buffer.from(o.digest).toString('hex'), chainId: o.chainId });
  if (!('r' in result)) throw new PlatformError('the platform answered a blockchain request with a PAdES signature');
  const r = BigInt(result.r);
  let s = BigInt(result.s);
  let yParity = result.recoveryId;
  if (r === 0n || r >= SECP256K1_N || s === 0n || s >= SECP256K1_N) throw new SigningError('the platform sent r or s outside the secp256k1 group order');
  // EIP-2: only low-s signatures are valid in transactions; the mirror image flips the parity.
  if (s > SECP256K1_N / 2n) {
    s = SECP256K1_N - s;
    yParity = yParity === 0 ? 1 : 0;
  }
  let recovered: string | null = null;
  try {
    recovered = recoverAddress(o.digest, r, s, yParity);
  } catch {
    recovered = null;
  }
  if (recovered === null || recovered.toLowerCase() !== o.credential.address!.toLowerCase()) {
    throw new SigningError(`the platform's signature recovers to ${recovered ?? 'no address'}, not to the address ${o.credential.address} of credential ${o.credential.credential_key}; nothing was signed`);
  }
  return { r, s, yParity };
}
