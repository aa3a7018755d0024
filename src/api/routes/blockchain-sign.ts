import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { acceptEvm } from '../../signing/accept';
import { readJsonObject } from '../middleware/read-body';
import { BLOCKCHAIN_SIGN_BODY, parseBody } from '../request-schemas';
import type { ApiEnv } from '../types';

/** POST /v1/blockchain/sign (spec §4; CONTRACT: tx_hash and chain_id shapes, type evm). */
export function postBlockchainSign(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const body = await readJsonObject(c, ctx.config.maxBodyBytes);
    const b = parseBody(body, BLOCKCHAIN_SIGN_BODY);
    const entry = await acceptEvm(ctx.accepting(), { digest: b.tx_hash, credentialKey: b.credential_key, chainId: b.chain_id, chipPin: b.chip_pin }, c.get('wrapper'));
    return c.json({ request_id: entry.requestId, status: entry.status }, 202);
  };
}
