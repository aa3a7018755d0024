import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Two directions of proof between an application and the service, both from the application's
 * secret, so that the secret itself never has to cross the socket:
 * - the service proves it is the service that holds this application's key: it answers a
 *   challenge with HMAC(proof key, challenge). A process that only squats on the port (another
 *   user of the machine, while the service is down or on the loopback family it does not hold)
 *   cannot, and a client that checks the proof first sends it no secret, document or PIN;
 * - the application signs each request with HMAC(request key, method, target, time, nonce)
 *   instead of sending X-Wrapper-Secret.
 * Both keys are derived from SHA-256 of the secret, which is what wrappers.json already stores
 * (only a hash of the secret is kept), so every existing key works with no migration. The stored
 * hash is thereby enough to sign requests: wrappers.json is as sensitive as the config dir's key
 * files beside it, which anyone who can read it could use directly.
 * Each key is HMAC(secret hash, label): separate labels keep the two uses apart (a proof is never a
 * request signature). The client (clients/typescript/src/proof.ts) computes the same values;
 * test/unit/store/wrapper-signatures.test.ts pins them with a vector shared by both.
 */
export const PROOF_KEY_LABEL = 'localsign-service-proof-key-v1';
export const REQUEST_KEY_LABEL = 'localsign-request-key-v1';

/**
 * How far a request's signed time may be from the service's clock. Client and service read the
 * same machine's clock, so the window only has to cover a request's time in flight; it also bounds
 * how long nonces are remembered (NonceCache).
 */
export const SIGNATURE_WINDOW_SECONDS = 30;

/** A challenge or nonce: 32 to 128 lowercase hex digits (16 to 64 random bytes). */
export const NONCE_PATTERN = /^[0-9a-f]{32,128}$/;

export const secretSha256 = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

const derive = (secretHash: Buffer, label: string): Buffer => createHmac('sha256', secretHash).update(label, 'utf8').digest();

/** What the service's proof covers: the key it answers for and the caller's challenge. */
export function proofMessage(key: string, challenge: string): string {
  return `localsign-service-proof-v1\n${key}\n${challenge}`;
}

/** What a request signature covers. `target` is the URL's path and query as WHATWG URL writes them. */
export function requestMessage(r: { method: string; target: string; time: number; nonce: string; key: string }): string {
  return `localsign-request-v1\n${r.method.toUpperCase()}\n${r.target}\n${r.time}\n${r.nonce}\n${r.key}`;
}

/** The proof for `challenge`, from the stored hash of the secret (hex). */
export function serviceProof(secretSha256Hex: string, key: string, challenge: string): string {
  return createHmac('sha256', derive(Buffer.from(secretSha256Hex, 'hex'), PROOF_KEY_LABEL)).update(proofMessage(key, challenge), 'utf8').digest('hex');
}

/** The request signature an application computes, from the stored hash of the secret (hex). */
export function requestSignature(secretSha256Hex: string, message: string): string {
  return createHmac('sha256', derive(Buffer.from(secretSha256Hex, 'hex'), REQUEST_KEY_LABEL)).update(message, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex strings of the expected length. */
export function sameHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(/^[0-9a-f]*$/.test(given) ? given : '', 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `X-Wrapper-Signature: t=<unix seconds>,n=<nonce>,s=<64 hex>`, or null when it is not that. */
export function parseSignatureHeader(value: string): { time: number; nonce: string; signature: string } | null {
  const m = /^t=(\d{1,12}),n=([0-9a-f]+),s=([0-9a-f]{64})$/.exec(value.trim());
  if (!m || !NONCE_PATTERN.test(m[2]!)) return null;
  return { time: Number(m[1]), nonce: m[2]!, signature: m[3]! };
}

/** A hash no secret has: unknown keys are answered with proofs from it, so they look like any other. */
export const UNKNOWN_KEY_HASH = randomBytes(32).toString('hex');

/**
 * Nonces seen recently, so a request is never accepted twice. Two generations of `generationMs`
 * each: a nonce is looked up in both, and a generation is dropped whole when two have passed, so
 * memory follows the request rate and nothing is swept one by one. A nonce is remembered at least
 * one generation; a replay is refused by the time check once its signed time is more than the
 * window from now, which is at most two windows after the nonce was first admitted: hence a
 * generation of two windows (2,000 requests a second hold at most about 240,000 nonces).
 */
export class NonceCache {
  private current = new Set<string>();
  private previous = new Set<string>();
  private started = 0;

  constructor(private readonly generationMs = 2 * SIGNATURE_WINDOW_SECONDS * 1000) {}

  /** Records `nonce`; false when it is remembered. */
  admit(nonce: string, now: number): boolean {
    if (now - this.started >= this.generationMs) {
      this.previous = now - this.started >= 2 * this.generationMs ? new Set() : this.current;
      this.current = new Set();
      this.started = now;
    }
    if (this.current.has(nonce) || this.previous.has(nonce)) return false;
    this.current.add(nonce);
    return true;
  }
}
