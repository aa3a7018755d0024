import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { describeCertificate } from '../../pki/describe-certificate';
import type { CachedCredential } from '../../store/catalog-types';
import type { ApiEnv } from '../types';

/**
 * The signer certificate's description: read at sync (platform/catalog-screen.ts) and kept in the
 * cache; only a cache written before that is read here, and a certificate that does not read then
 * leaves its credential out of the list (null) instead of failing the list for everyone (issue
 * 15). The next sync names it.
 */
function signerOf(c: CachedCredential): CachedCredential['certificate'] | null | 'unreadable' {
  if (c.certificate) return c.certificate;
  const signer = c.certificate_chain?.[0];
  if (!signer) return null;
  try {
    return describeCertificate(new Uint8Array(Buffer.from(signer, 'base64')));
  } catch {
    return 'unreadable';
  }
}

/** Credential as the API shows it (CONTRACT GET /v1/credentials): no chip internals; null when its certificate does not read. */
export function presentCredential(c: CachedCredential): Record<string, unknown> | null {
  const base = {
    credential_key: c.credential_key,
    type: c.type,
    name: c.name,
    engine: c.engine,
    default_design_key: c.type === 'evm' ? null : c.default_design_key,
    // CONTRACT: chip credentials may add pin_per_signature (the key is CKA_ALWAYS_AUTHENTICATE),
    // and pin_per_request (a sign request brings chip_pin), issue 16.
    ...(c.engine === 'chip' && c.pin_per_signature !== undefined ? { pin_per_signature: c.pin_per_signature } : {}),
    ...(c.engine === 'chip' && c.pin_per_request ? { pin_per_request: true } : {}),
  };
  if (c.type === 'evm') return { ...base, address: c.address };
  const certificate = signerOf(c);
  if (certificate === 'unreadable') return null;
  return { ...base, certificate, certificate_chain: c.certificate_chain ?? [] };
}

/** A wrapper limited to some credentials sees only those. */
export function listCredentials(ctx: AppContext) {
  return (c: Context<ApiEnv>) => {
    const allowed = c.get('wrapper').credentials;
    const list = ctx.cache.get().credentials.filter((x) => !allowed || allowed.includes(x.credential_key));
    return c.json({ credentials: list.map(presentCredential).filter((x) => x !== null) });
  };
}

export function listDesigns(ctx: AppContext) {
  return (c: Context<ApiEnv>) =>
    c.json({
      designs: ctx.cache.get().designs.map((d) => ({ design_key: d.design_key, name: d.name, variables: d.variables })),
    });
}
