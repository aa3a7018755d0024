/**
 * The CRLs and OCSP responses a signature's validation may use (pki/revocation.ts judges them):
 * the document's /DSS and its /VRI entries (ETSI EN 319 142-1 §5.4.2), the signature's own CMS
 * (its `crls` field, RFC 5652 §10.2.1, and the adbe-revocationInfoArchival attribute, ISO 32000-1
 * §12.8.3.3.2), the timestamp token's, and what `verify --online` fetched. Each blob is read once
 * per document; one that does not read is named where a status stays undetermined.
 */
import { createHash } from 'node:crypto';
import type { RevocationInfo } from '../../der/cms-fields';
import { parseCrl, type Crl } from '../../pki/crl';
import { parseOcspResponse, type OcspResponse } from '../../pki/ocsp';
import type { FoundIn, RevocationData } from '../../pki/revocation';

type Parsed = { crl: Crl } | { response: OcspResponse } | { unreadable: string };

export class RevocationSources {
  private readonly parsed = new Map<string, Parsed>();

  private read(der: Uint8Array, kind: 'crl' | 'ocsp'): Parsed {
    const key = `${kind}:${createHash('sha256').update(der).digest('hex')}`;
    let p = this.parsed.get(key);
    if (!p) {
      try {
        p = kind === 'crl' ? { crl: parseCrl(der) } : { response: parseOcspResponse(der) };
      } catch (e) {
        p = { unreadable: `a${kind === 'crl' ? ' CRL' : 'n OCSP response'} does not read: ${(e as Error).message}` };
      }
      this.parsed.set(key, p);
    }
    return p;
  }

  /** The data of every source given, each CRL and response once, the first source that holds it naming where it was found. */
  data(sources: { foundIn: FoundIn; info: RevocationInfo }[]): RevocationData {
    const unreadable: string[] = [];
    const out: RevocationData = { crls: [], ocsps: [], unreadable };
    const seen = new Set<Parsed>();
    for (const { foundIn, info } of sources) {
      for (const [list, kind] of [[info.crls, 'crl'], [info.ocsps, 'ocsp']] as const) {
        for (const der of list) {
          const p = this.read(der, kind);
          if (seen.has(p)) continue;
          seen.add(p);
          if ('crl' in p) out.crls.push({ crl: p.crl, foundIn });
          else if ('response' in p) out.ocsps.push({ response: p.response, foundIn });
          else unreadable.push(`${p.unreadable} (${foundIn})`);
        }
      }
    }
    return out;
  }
}
