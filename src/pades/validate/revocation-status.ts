/**
 * The revocation status of one certificate from the data embedded in the document (the DSS's
 * OCSP responses, then its CRLs), checked against the issuer (RFC 6960 §4.2.2.2, RFC 5280 §6.3).
 * No network: a certificate without embedded data is `no_data`, which B-LT rules out.
 */
import { bytesEqual } from '../../der/der';
import { readCertificate } from '../../der/certificate-fields';
import { subjectOf } from '../../pki/chain';
import { checkCrl, parseCrl } from '../../pki/crl';
import { checkOcspResponse, parseOcspResponse } from '../../pki/ocsp';
import type { DssData } from './dss-read';

export interface RevocationEntry {
  certificate: string;
  status: 'good' | 'revoked' | 'unknown' | 'no_data';
  source: 'ocsp' | 'crl' | null;
  revokedAt: string | null;
  /** thisUpdate of the answer used. */
  checkedAt: string | null;
  problems: string[];
}

export function embeddedRevocation(cert: Uint8Array, issuer: Uint8Array | null, dss: DssData): RevocationEntry {
  const entry: RevocationEntry = { certificate: subjectOf(cert), status: 'no_data', source: null, revokedAt: null, checkedAt: null, problems: [] };
  if (!issuer) {
    entry.problems.push('its issuer is unknown: embedded revocation data cannot be checked');
    return entry;
  }
  for (const der of dss.ocsps) {
    let verdict;
    try {
      verdict = checkOcspResponse(parseOcspResponse(der), cert, issuer);
    } catch (e) {
      const message = (e as Error).message;
      if (!message.includes('no matching CertID')) entry.problems.push(`an embedded OCSP response about it is unusable: ${message}`);
      continue;
    }
    return { ...entry, status: verdict.status, source: 'ocsp', revokedAt: verdict.revokedAt?.toISOString() ?? null, checkedAt: verdict.thisUpdate.toISOString() };
  }
  const issuerName = readCertificate(cert).issuer.raw;
  for (const der of dss.crls) {
    try {
      const crl = parseCrl(der);
      if (!bytesEqual(crl.issuer, issuerName)) continue;
      const verdict = checkCrl(crl, cert, issuer);
      return { ...entry, status: verdict.status, source: 'crl', revokedAt: verdict.revokedAt?.toISOString() ?? null, checkedAt: verdict.thisUpdate.toISOString() };
    } catch (e) {
      entry.problems.push(`an embedded CRL is unusable: ${(e as Error).message}`);
    }
  }
  return entry;
}
