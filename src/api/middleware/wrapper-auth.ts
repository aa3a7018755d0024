import type { MiddlewareHandler } from 'hono';
import { LocalsignError } from '../../domain/errors';
import { NONCE_PATTERN, parseSignatureHeader } from '../../store/wrapper-signatures';
import type { WrapperStore } from '../../store/wrapper-store';
import type { ApiEnv } from '../types';

export const SIGNATURE_HEADER = 'x-wrapper-signature';
export const CHALLENGE_HEADER = 'x-localsign-challenge';
export const PROOF_HEADER = 'X-Localsign-Proof';

/**
 * spec §5: X-Wrapper-Key with X-Wrapper-Secret on every /v1 route; or, so the secret never crosses
 * the socket, X-Wrapper-Key with X-Wrapper-Signature (a signature of the request made with the
 * secret: store/wrapper-signatures.ts). One 401 message for a missing header, an unknown key, a
 * wrong secret or signature, a replay and a revoked key, so a caller learns nothing. The store
 * re-reads wrappers.json when the CLI changed it, so revocation holds on the very next request.
 *
 * The answer proves the service: with a challenge (X-Localsign-Challenge, or the nonce of the
 * request's signature), it carries X-Localsign-Proof, which only the service holding this key's
 * secret hash can compute. A client checks it before it believes the answer.
 */
export function wrapperAuth(wrappers: WrapperStore, now: () => number = Date.now): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const key = c.req.header('x-wrapper-key');
    const secret = c.req.header('x-wrapper-secret');
    const signature = c.req.header(SIGNATURE_HEADER);
    let wrapper = null;
    if (key && signature !== undefined) {
      const url = new URL(c.req.url);
      wrapper = wrappers.authenticateSigned(key, signature, { method: c.req.method, target: url.pathname + url.search }, now());
    } else if (key && secret) {
      wrapper = wrappers.authenticate(key, secret);
    }
    if (!wrapper) {
      throw new LocalsignError('unauthorized', 'missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)', { type: 'auth' });
    }
    c.set('wrapper', wrapper);
    const challenge = challengeOf(c.req.header(CHALLENGE_HEADER), signature);
    if (challenge) c.header(PROOF_HEADER, wrappers.proof(wrapper.key, challenge));
    await next();
  };
}

/** The challenge an answer proves itself against: the caller's own, else its signature's nonce. */
function challengeOf(header: string | undefined, signature: string | undefined): string | null {
  if (header !== undefined && NONCE_PATTERN.test(header)) return header;
  return signature === undefined ? null : (parseSignatureHeader(signature)?.nonce ?? null);
}
