import type { Context } from 'hono';
import type { AppContext } from '../../context';
import type { ApiEnv } from '../types';
import { parseLimit } from '../validate';

/** GET /v1/errors: newest first, no tracebacks, limit default 20 (spec §4, CONTRACT). */
export function listErrors(ctx: AppContext) {
  return (c: Context<ApiEnv>) => {
    const limit = parseLimit(c.req.queries('limit'), 20);
    const requestIds = c.req.queries('request_id');
    const requestId = requestIds && requestIds.length > 0 ? requestIds[0] : undefined;
    // CONTRACT: an application key sees only the records of its own requests and failed calls.
    return c.json({ errors: ctx.errors.list(c.get('wrapper').key, limit, requestId) });
  };
}
