import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { cacheSummary } from './health';

/**
 * POST /v1/sync: reload the catalogue; 409 unpaired (middleware), 502 with the old cache kept.
 * `skipped` names the entries the sync left out (a certificate that is not DER, a stamp image over
 * the caps: platform/catalog-screen.ts); present only when there are some, so the answer of a
 * clean sync is the one integrators already read.
 */
export function postSync(ctx: AppContext) {
  return async (c: Context) => {
    const cache = await ctx.sync();
    return c.json({
      ok: true,
      credentials: cache.credentials.length,
      designs: cache.designs.length,
      cache: cacheSummary(ctx),
      ...(cache.skipped && cache.skipped.length > 0 ? { skipped: cache.skipped } : {}),
    });
  };
}
