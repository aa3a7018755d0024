import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { cacheSummary } from './health';

/** POST /v1/sync: reload the catalogue; 409 unpaired (middleware), 502 with the old cache kept. */
export function postSync(ctx: AppContext) {
  return async (c: Context) => {
    const cache = await ctx.sync();
    return c.json({ ok: true, credentials: cache.credentials.length, designs: cache.designs.length, cache: cacheSummary(ctx) });
  };
}
