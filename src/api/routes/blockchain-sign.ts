import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { InvalidInputError } from '../../errors/errors';
import { parseChainId, parseTxHash } from '../../evm';
import { assertCredentialAllowed } from '../middleware/wrapper-auth';
import { readJsonObject } from '../middleware/read-body';
import type { ApiEnv } from '../types';
import { assertKnownFields, requiredString } from '../validate';

const FIELDS = ['tx_hash', 'credential_key', 'chain_id'] as const;

/** POST /v1/blockchain/sign (spec §4; CONTRACT: tx_hash and chain_id shapes, type evm). */
export function postBlockchainSign(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const body = await readJsonObject(c, ctx.config.maxBodyBytes);
    assertKnownFields(body, FIELDS);
    const digest = parseTxHash(body.tx_hash);
    const credentialKey = requiredString(body, 'credential_key');
    const chainId = parseChainId(body.chain_id);
    assertCredentialAllowed(c.get('wrapper').credentials, credentialKey);
    const credential = ctx.cache.get().credentials.find((x) => x.credential_key === credentialKey);
    if (!credential) throw new InvalidInputError(`credential_key ${credentialKey.slice(0, 64)} is not a known credential (see GET /v1/credentials)`);
    if (credential.type !== 'evm') throw new InvalidInputError(`credential_key ${credentialKey} is a ${credential.type} credential; blockchain signing needs an evm one`);
    const { entry, durable } = ctx.requests.registry.begin({
      kind: 'blockchain',
      credentialKey,
      wrapperKey: c.get('wrapper').key,
      params: { tx_hash: Buffer.from(digest).toString('hex'), chain_id: chainId },
    });
    // Signing overlaps the fsync of the PENDING record; the 202 waits for it (nothing lost).
    ctx.requests.jobs.start(entry, durable);
    await durable;
    return c.json({ request_id: entry.request_id, status: entry.status }, 202);
  };
}
