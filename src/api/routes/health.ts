import type { Context } from 'hono';
import { API_VERSION, COMMIT, SERVICE_NAME, VERSION } from '../../config/version';
import type { AppContext } from '../../context';
import { NONCE_PATTERN } from '../../store/wrapper-signatures';
import { CHALLENGE_HEADER, PROOF_HEADER } from '../middleware/wrapper-auth';

export function cacheSummary(ctx: AppContext): { credentials: number; designs: number } {
  const cache = ctx.cache.get();
  return { credentials: cache.credentials.length, designs: cache.designs.length };
}

/**
 * GET /health: no application auth (spec §4); tenant_id null when unpaired or revoked (CONTRACT).
 * With X-Wrapper-Key and X-Localsign-Challenge it also proves the service before a client sends
 * anything secret: X-Localsign-Proof answers the challenge for that key (middleware/wrapper-auth.ts).
 * An unknown key gets a proof that proves nothing, never an error: /health fails for no one.
 */
export function getHealth(ctx: AppContext) {
  return (c: Context) => {
    const key = c.req.header('x-wrapper-key');
    const challenge = c.req.header(CHALLENGE_HEADER);
    if (key && challenge && NONCE_PATTERN.test(challenge) && key.length <= 200) c.header(PROOF_HEADER, ctx.wrappers.proof(key, challenge));
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
      // A PKCS#11 chip's state (a signature card pulled out shows here, once a call to
      // the token found it gone); absent for the software chip and before the chip was used.
      ...(chip === null ? {} : { chip }),
    });
  };
}
