import type { Context } from 'hono';
import type { AppContext } from '../../context';
import type { CachedCredential } from '../../store/catalog-types';
import type { ApiEnv } from '../types';

/**
 * Credential as the API shows it (CONTRACT GET /v1/credentials): no chip internals, the fields its
 * type adds (kind.ts CredentialType `present`); null when it is left out (a certificate that does
 * not read, or a type no kind of this service signs).
 */
export function presentCredential(ctx: Pick<AppContext, 'kinds' | 'engines'>, c: CachedCredential): Record<string, unknown> | null {
  const type = ctx.kinds.credentialTypes().get(c.type);
  if (!type) return null;
  const onChip = ctx.engines.facts(c.engine)?.onChip === true;
  const base = {
    credential_key: c.credential_key,
    type: c.type,
    name: c.name,
    engine: c.engine,
    default_design_key: type.takesDesign ? c.default_design_key : null,
    // CONTRACT: chip credentials may add pin_per_signature (the key is CKA_ALWAYS_AUTHENTICATE),
    // and pin_per_request (a sign request brings chip_pin).
    ...(onChip && c.pin_per_signature !== undefined ? { pin_per_signature: c.pin_per_signature } : {}),
    ...(onChip && c.pin_per_request ? { pin_per_request: true } : {}),
  };
  const own = type.present(c);
  return own ? { ...base, ...own } : null;
}

/** A wrapper limited to some credentials sees only those. */
export function listCredentials(ctx: AppContext) {
  return (c: Context<ApiEnv>) => {
    const allowed = c.get('wrapper').credentials;
    const list = ctx.cache.get().credentials.filter((x) => !allowed || allowed.includes(x.credential_key));
    return c.json({ credentials: list.map((x) => presentCredential(ctx, x)).filter((x) => x !== null) });
  };
}

export function listDesigns(ctx: AppContext) {
  return (c: Context<ApiEnv>) =>
    c.json({
      designs: ctx.cache.get().designs.map((d) => ({ design_key: d.design_key, name: d.name, variables: d.variables })),
    });
}
