import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { LocalsignError } from '../../domain/errors';

/**
 * GET /pki/demo-ca.crl: the demo CA's CRL (RFC 5280 §5, DER, application/pkix-crl) at the URL its
 * signer certificates name. No application key, like /health: a verifier fetching a CRL has none.
 */
export function getDemoCrl(ctx: AppContext) {
  return (c: Context) => {
    const crl = ctx.demoCrl();
    if (!crl) throw new LocalsignError('not_found', 'no demo CA here: the embedded software chip publishes its CRL once `init --embedded` made it', { type: 'not_found' });
    return c.body(Buffer.from(crl.der), 200, { 'content-type': 'application/pkix-crl', 'cache-control': 'max-age=86400' });
  };
}
