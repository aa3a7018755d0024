import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { acceptRequest } from '../../signing/accept';
import type { SignatureKind } from '../../signing/kinds';
import { readJsonObject } from '../middleware/read-body';
import { parseBody } from '../request-schemas';
import type { ApiEnv } from '../types';

/**
 * The sign route of a kind whose request is one JSON body (kind.ts `KindRoute`; POST
 * /v1/blockchain/sign, spec §4): the body parsed with the kind's own description, accepted
 * (signing/accept.ts), answered 202.
 */
export function postKindSign(ctx: AppContext, kind: SignatureKind) {
  const route = kind.route!;
  return async (c: Context<ApiEnv>) => {
    const body = parseBody(await readJsonObject(c, ctx.config.maxBodyBytes), route.body);
    const entry = await acceptRequest(ctx.accepting(), kind, route.accept(body), c.get('wrapper'));
    return c.json({ request_id: entry.requestId, status: entry.status }, 202);
  };
}
