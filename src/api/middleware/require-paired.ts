import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../../context';

/** spec §7 / CONTRACT: 409 on the sign routes and /v1/sync when the machine is not paired. */
export function requirePaired(ctx: AppContext): MiddlewareHandler {
  return async (_c, next) => {
    if (!ctx.currentPairing()) throw ctx.notPaired();
    await next();
  };
}
