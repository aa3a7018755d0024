/**
 * A fetched catalogue checked entry by entry at sync, before it becomes the cache. The wire checks
 * (remote/wire.ts) say whether the platform sent a catalogue at all, and a malformed one fails the
 * sync with the old cache kept (PLATFORM.md "Failures"). What is checked here is what one entry
 * carries: a certificate that is not DER, or a stamp image over the caps. Such an entry is left out
 * and named, so it never breaks the list or the signatures of every other entry (before, one
 * non-DER certificate made GET /v1/credentials answer 422 to every application).
 */
import { describeCertificate } from '../pki/describe-certificate';
import type { CachedCredential, CachedDesign, SkippedEntry } from '../store/catalog-types';
import { checkDesignImage } from './design-check';

export interface ScreenedCatalog {
  credentials: CachedCredential[];
  designs: CachedDesign[];
  skipped: SkippedEntry[];
}

/**
 * Every certificate of a credential's chain (a PAdES credential's) read once, here: the signer's
 * description is kept in the cache for GET /v1/credentials (which then parses nothing), and a
 * chain with a certificate that does not read would fail at signing time anyway (the CMS carries
 * the chain).
 */
function screenCredential(c: CachedCredential): { ok: CachedCredential } | { problem: string } {
  const chain = c.certificate_chain;
  if (!chain) return { ok: c };
  let signer: CachedCredential['certificate'];
  for (const [i, b64] of chain.entries()) {
    try {
      const description = describeCertificate(new Uint8Array(Buffer.from(b64, 'base64')));
      if (i === 0) signer = description;
    } catch (e) {
      return { problem: `certificate_chain[${i}] is not a DER X.509 certificate (${(e as Error).message.slice(0, 200)})` };
    }
  }
  return { ok: signer ? { ...c, certificate: signer } : c };
}

export function screenCatalog(fetched: { credentials: CachedCredential[]; designs: CachedDesign[] }): ScreenedCatalog {
  const out: ScreenedCatalog = { credentials: [], designs: [], skipped: [] };
  for (const c of fetched.credentials) {
    const r = screenCredential(c);
    if ('ok' in r) out.credentials.push(r.ok);
    else out.skipped.push({ credential_key: c.credential_key, name: c.name, reason: r.problem });
  }
  for (const d of fetched.designs) {
    const problem = checkDesignImage(d);
    if (problem) out.skipped.push({ design_key: d.design_key, name: d.name, reason: problem });
    else out.designs.push(d);
  }
  return out;
}

/** The log line of a skipped entry (service.log and the console, through the logger's escaping). */
export function describeSkipped(s: SkippedEntry): string {
  const what = 'credential_key' in s ? `credential ${s.credential_key}` : `design ${s.design_key}`;
  return `sync: ${what} (${s.name}) left out: ${s.reason}`;
}
