import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { describeCertificate } from '../../pki/describe-certificate';
import type { CachedCredential } from '../../store/catalog-types';
import type { ApiEnv } from '../types';

/** Credential as the API shows it (CONTRACT GET /v1/credentials): no chip internals. */
export function presentCredential(c: CachedCredential): Record<string, unknown> {
  const base = {
    credential_key: c.credential_key,
    type: c.type,
    name: c.name,
    engine: c.engine,
    default_design_key: c.type === 'evm' ? null : c.default_design_key,
  };
  if (c.type === 'evm') return { ...base, address: c.address };
  const chain = c.certificate_chain ?? [];
  return {
    ...base,
    certificate: chain[0] ? describeCertificate(new Uint8Array(Buffer.from(chain[0], 'base64'))) : null,
    certificate_chain: chain,
  };
}

/** A wrapper limited to some credentials sees only those. */
export function listCredentials(ctx: AppContext) {
  return (c: Context<ApiEnv>) => {
    const allowed = c.get('wrapper').credentials;
    const list = ctx.cache.get().credentials.filter((x) => !allowed || allowed.includes(x.credential_key));
    return c.json({ credentials: list.map(presentCredential) });
  };
}

export function listDesigns(ctx: AppContext) {
  return (c: Context<ApiEnv>) =>
    c.json({
      designs: ctx.cache.get().designs.map((d) => ({ design_key: d.design_key, name: d.name, variables: d.variables })),
    });
}
