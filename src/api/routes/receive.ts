import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { InvalidInputError, LocalsignError } from '../../errors/errors';
import { verifyPush } from '../../platform/push-hmac';
import { readBodyBytes } from '../middleware/read-body';

/**
 * POST /receive (PLATFORM.md push). HMAC with the agent secret — wrapper credentials never open
 * it. Only requests waiting on the platform can be completed here; a request signed on the local
 * chip is not the platform's to answer, so it is "unknown" to this route (404).
 */
export function postReceive(ctx: AppContext) {
  return async (c: Context) => {
    const raw = await readBodyBytes(c, 1024 * 1024);
    const pairing = ctx.currentPairing();
    const ok = verifyPush({
      agentSecret: pairing?.agent_secret ?? null,
      timestamp: c.req.header('x-platform-timestamp'),
      signature: c.req.header('x-platform-signature'),
      rawBody: raw,
      nowSeconds: Math.floor(ctx.now().getTime() / 1000),
    });
    if (!ok) throw new LocalsignError('unauthorized', 'missing or invalid platform signature', { type: 'push_auth' });
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new InvalidInputError('push body must be valid JSON');
    }
    const id = typeof (body as { request_id?: unknown })?.request_id === 'string' ? (body as { request_id: string }).request_id : '';
    const entry = ctx.requests.store.get(id);
    const credential = entry ? ctx.cache.get().credentials.find((x) => x.credential_key === entry.credential_key) : undefined;
    if (!entry || credential?.engine !== 'platform') {
      throw new LocalsignError('not_found', `no request ${id.slice(0, 64)} is waiting for the platform`, { type: 'not_found' });
    }
    if (entry.status !== 'PENDING') return c.json({ ok: true, duplicate: true });
    // Platform-engine signing (and so completing from a push) arrives with the remote-platform issue.
    throw new LocalsignError('not_found', `no request ${id.slice(0, 64)} is waiting for the platform`, { type: 'not_found' });
  };
}
