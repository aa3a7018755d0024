import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { readBodyBytes } from '../middleware/read-body';

/** Pushes are small JSON documents; anything larger is not one. */
const MAX_PUSH_BYTES = 1024 * 1024;

/** POST /receive (PLATFORM.md push): the route reads the raw body and headers; platform/remote/receive-push.ts decides. */
export function postReceive(ctx: AppContext) {
  return async (c: Context) => {
    const raw = await readBodyBytes(c, MAX_PUSH_BYTES);
    const { duplicate } = ctx.receivePush(raw, { timestamp: c.req.header('x-platform-timestamp'), signature: c.req.header('x-platform-signature') });
    return c.json(duplicate ? { ok: true, duplicate: true } : { ok: true });
  };
}
