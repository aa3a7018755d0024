import type { Context } from 'hono';
import { API_VERSION, COMMIT, SERVICE_NAME, VERSION } from '../../config/version';
import type { AppContext } from '../../context';

export function cacheSummary(ctx: AppContext): { credentials: number; designs: number } {
  const cache = ctx.cache.get();
  return { credentials: cache.credentials.length, designs: cache.designs.length };
}

/** GET /health: no application auth (spec §4); tenant_id null when unpaired or revoked (CONTRACT). */
export function getHealth(ctx: AppContext) {
  return (c: Context) => {
    const pairing = ctx.currentPairing();
    const chip = ctx.chips.status();
    return c.json({
      ok: true,
      service: SERVICE_NAME,
      paired: pairing !== null,
      tenant_id: pairing ? pairing.tenant_id : null,
      version: VERSION,
      commit: COMMIT,
      api_version: API_VERSION,
      cache: cacheSummary(ctx),
      platform: pairing ? pairing.platform : null,
      // Issue 16: a PKCS#11 chip's state (a signature card pulled out shows here, once a call to
      // the token found it gone); absent for the software chip and before the chip was used.
      ...(chip === null ? {} : { chip }),
    });
  };
}
