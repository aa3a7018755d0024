import type { MiddlewareHandler } from 'hono';
import { LocalsignError } from '../../domain/errors';
import type { WrapperStore } from '../../store/wrapper-store';
import type { ApiEnv } from '../types';

/**
 * spec §5: X-Wrapper-Key / X-Wrapper-Secret on every /v1 route. One 401 message for a missing
 * header, an unknown key, a wrong secret and a revoked key, so a caller learns nothing. The store
 * re-reads wrappers.json when the CLI changed it, so revocation holds on the very next request.
 */
export function wrapperAuth(wrappers: WrapperStore): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const key = c.req.header('x-wrapper-key');
    const secret = c.req.header('x-wrapper-secret');
    const wrapper = key && secret ? wrappers.authenticate(key, secret) : null;
    if (!wrapper) {
      throw new LocalsignError('unauthorized', 'missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)', { type: 'auth' });
    }
    c.set('wrapper', wrapper);
    await next();
  };
}
