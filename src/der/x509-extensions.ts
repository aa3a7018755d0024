/**
 * Readers of the X.509 extensions that revocation and path checks need (RFC 5280 §4.2): where a
 * certificate's status is published (authorityInfoAccess id-ad-ocsp, cRLDistributionPoints), what
 * it may sign (basicConstraints, extKeyUsage) and the OCSP no-check marker (RFC 6960 §4.2.2.2.1).
 */
import { children, decodeOid, expectTag, readDerExact, TAG, type Der } from './der';
import { findExtension, readCertificate, type CertificateFields } from './certificate-fields';
import { OID } from './oids';

/** GeneralName uniformResourceIdentifier [6] IMPLICIT IA5String (RFC 5280 §4.2.1.6). */
const URI_TAG = 0x86;

function fieldsOf(cert: Uint8Array | CertificateFields): CertificateFields {
  return cert instanceof Uint8Array ? readCertificate(cert) : cert;
}

function uris(names: Der[]): string[] {
  return names.filter((n) => n.tag === URI_TAG).map((n) => Buffer.from(n.content).toString('latin1'));
}

/** AuthorityInfoAccessSyntax ::= SEQUENCE OF AccessDescription { accessMethod, accessLocation GeneralName }. */
function accessLocations(cert: Uint8Array | CertificateFields, method: string): string[] {
  const value = findExtension(fieldsOf(cert), OID.authorityInfoAccess);
  if (!value) return [];
  const out: string[] = [];
  for (const ad of children(expectTag(readDerExact(value), TAG.SEQUENCE, 'AuthorityInfoAccess'))) {
    const [m, location] = children(expectTag(ad, TAG.SEQUENCE, 'AccessDescription'));
    if (decodeOid(expectTag(m, TAG.OID, 'accessMethod').content) === method && location) out.push(...uris([location]));
  }
  return out;
}

/** OCSP responder URLs (RFC 5280 §4.2.2.1, id-ad-ocsp), in the certificate's order. */
export function ocspUrls(cert: Uint8Array | CertificateFields): string[] {
  return accessLocations(cert, OID.adOcsp);
}

/** Where the issuer's certificate can be downloaded (id-ad-caIssuers). */
export function caIssuerUrls(cert: Uint8Array | CertificateFields): string[] {
  return accessLocations(cert, OID.adCaIssuers);
}

/**
 * CRL URLs (RFC 5280 §4.2.1.13): DistributionPoint { distributionPoint [0] { fullName [0]
 * GeneralNames } }; relative names and CRL issuers other than the certificate's are not followed.
 */
export function crlUrls(cert: Uint8Array | CertificateFields): string[] {
  const value = findExtension(fieldsOf(cert), OID.cRLDistributionPoints);
  if (!value) return [];
  const out: string[] = [];
  for (const dp of children(expectTag(readDerExact(value), TAG.SEQUENCE, 'CRLDistributionPoints'))) {
    const parts = children(expectTag(dp, TAG.SEQUENCE, 'DistributionPoint'));
    if (parts.some((p) => p.tag === 0xa2)) continue; // cRLIssuer: an indirect CRL, not this issuer's
    const name = parts.find((p) => p.tag === 0xa0);
    const full = name && children(name).find((n) => n.tag === 0xa0);
    if (full) out.push(...uris(children(full)));
  }
  return out;
}

/** basicConstraints cA (RFC 5280 §4.2.1.9); false when the extension is absent. */
export function isCaCertificate(cert: Uint8Array | CertificateFields): boolean {
  const value = findExtension(fieldsOf(cert), OID.basicConstraints);
  if (!value) return false;
  const first = children(expectTag(readDerExact(value), TAG.SEQUENCE, 'BasicConstraints'))[0];
  return first?.tag === TAG.BOOLEAN && first.content[0] !== 0;
}

/** extKeyUsage purposes (RFC 5280 §4.2.1.12); null when the extension is absent (any purpose). */
export function extendedKeyUsages(cert: Uint8Array | CertificateFields): string[] | null {
  const value = findExtension(fieldsOf(cert), OID.extKeyUsage);
  if (!value) return null;
  return children(expectTag(readDerExact(value), TAG.SEQUENCE, 'ExtKeyUsageSyntax')).map((k) => decodeOid(expectTag(k, TAG.OID, 'KeyPurposeId').content));
}

/** id-pkix-ocsp-nocheck: a delegated OCSP responder's certificate is not itself checked (RFC 6960 §4.2.2.2.1). */
export function hasOcspNoCheck(cert: Uint8Array | CertificateFields): boolean {
  return findExtension(fieldsOf(cert), OID.ocspNoCheck) !== null;
}
