import type { CryptoBackend } from './crypto-backend.js';
import { hexOf } from './hex.js';

/**
 * The two proofs between an application and the service, both from the application's secret, so
 * that the secret never crosses the socket (the service's side: src/store/wrapper-signatures.ts;
 * docs/integrators.md "Authenticating the service"):
 * - the application signs each request: X-Wrapper-Signature `t=<unix s>,n=<nonce>,s=<hex
 *   HMAC-SHA256(K_req, "localsign-request-v1\n" METHOD "\n" path?query "\n" t "\n" n "\n" key)>`;
 * - the service proves it holds this key: X-Localsign-Proof `hex HMAC-SHA256(K_proof,
 *   "localsign-service-proof-v1\n" key "\n" challenge)`, for the request's nonce or for the
 *   X-Localsign-Challenge of a GET /health.
 * K_req and K_proof are HMAC-SHA256(SHA-256(secret), label), one label each, so a proof is never a
 * request signature. test/proof.test.ts pins them with the openssl vector the service's test holds.
 */
export const PROOF_KEY_LABEL = 'localsign-service-proof-key-v1';
export const REQUEST_KEY_LABEL = 'localsign-request-key-v1';
export const SIGNATURE_HEADER = 'x-wrapper-signature';
export const CHALLENGE_HEADER = 'x-localsign-challenge';
export const PROOF_HEADER = 'x-localsign-proof';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

export interface DerivedKeys {
  proof: Uint8Array;
  request: Uint8Array;
}

export async function deriveKeys(secret: string, crypto: CryptoBackend): Promise<DerivedKeys> {
  const secretHash = await crypto.sha256([utf8(secret)]);
  const [proof, request] = await Promise.all([crypto.hmacSha256(secretHash, utf8(PROOF_KEY_LABEL)), crypto.hmacSha256(secretHash, utf8(REQUEST_KEY_LABEL))]);
  return { proof, request };
}

export interface SignedRequest {
  method: string;
  /** The URL's path and query as WHATWG URL writes them: what the service reads back. */
  target: string;
  time: number;
  nonce: string;
  key: string;
}

export function requestMessage(r: SignedRequest): string {
  return `localsign-request-v1\n${r.method.toUpperCase()}\n${r.target}\n${r.time}\n${r.nonce}\n${r.key}`;
}

/** The value of X-Wrapper-Signature for this request. */
export async function signatureHeader(keys: DerivedKeys, r: SignedRequest, crypto: CryptoBackend): Promise<string> {
  const s = hexOf(await crypto.hmacSha256(keys.request, utf8(requestMessage(r))));
  return `t=${r.time},n=${r.nonce},s=${s}`;
}

/** The X-Localsign-Proof the service that holds `key` answers to `challenge`. */
export async function expectedProof(keys: DerivedKeys, key: string, challenge: string, crypto: CryptoBackend): Promise<string> {
  return hexOf(await crypto.hmacSha256(keys.proof, utf8(`localsign-service-proof-v1\n${key}\n${challenge}`)));
}

/**
 * A fresh challenge or nonce: 16 random bytes as 32 lowercase hex digits (the service takes 32 to
 * 128); fresh each time, so an answer recorded earlier proves nothing now.
 */
export function newNonce(crypto: CryptoBackend): string {
  return hexOf(crypto.randomBytes(16));
}

/**
 * Whether `given` is the expected proof. Both are HMACs the peer cannot steer toward the value, and
 * the challenge is new each time, so an early exit leaks nothing worth having; compared in full
 * anyway, as a MAC comparison should be.
 */
export function sameProof(expected: string, given: string | null): boolean {
  if (given === null || given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i += 1) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}
