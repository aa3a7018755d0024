/**
 * Readers of a CRL (RFC 5280 §5.1) and of the distribution-point structures that say which CRL
 * covers which certificate: cRLDistributionPoints (§4.2.1.13), issuingDistributionPoint
 * (§5.2.5) and their ReasonFlags. Each returns DER views; what they mean for a certificate's
 * status is judged in pki/ (crl.ts, revocation.ts).
 */
import { children, DerError, expectTag, readDerExact, TAG, type Der } from './der';
import { findExtension, type CertificateFields } from './certificate-fields';
import { OID } from './oids';
import { readExtensionList, type Extension } from './x509-constraints';

export interface CertificateListFields {
  /** tbsCertList, signatureAlgorithm, signatureValue: the shape verifySignedSequence takes. */
  signed: Der[];
  /** The AlgorithmIdentifier inside tbsCertList (§5.1.2.2: must equal the outer one). */
  innerAlgorithm: Der;
  issuer: Der;
  thisUpdate: Der;
  nextUpdate: Der | null;
  /** revokedCertificates: each SEQUENCE { userCertificate, revocationDate, crlEntryExtensions OPTIONAL }. */
  entries: Der[];
  extensions: Extension[];
}

/** CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue } (§5.1). */
export function readCertificateList(der: Uint8Array): CertificateListFields {
  const signed = children(expectTag(readDerExact(der), TAG.SEQUENCE, 'CertificateList'));
  if (signed.length !== 3) throw new DerError(`CertificateList has ${signed.length} elements, not 3`);
  const tbs = children(expectTag(signed[0], TAG.SEQUENCE, 'TBSCertList'));
  let i = 0;
  // version OPTIONAL: present (v2, INTEGER 1) whenever extensions are (§5.1.2.1).
  if (tbs[i]?.tag === TAG.INTEGER) {
    const v = tbs[i++]!.content;
    if (v.length !== 1 || v[0] !== 1) throw new DerError('the CRL version is not v2');
  }
  const innerAlgorithm = expectTag(tbs[i++], TAG.SEQUENCE, 'TBSCertList.signature');
  const issuer = expectTag(tbs[i++], TAG.SEQUENCE, 'issuer');
  const thisUpdate = tbs[i++];
  if (!thisUpdate) throw new DerError('thisUpdate is missing');
  const nextUpdate = tbs[i]?.tag === TAG.UTC_TIME || tbs[i]?.tag === TAG.GENERALIZED_TIME ? tbs[i++]! : null;
  const entries = tbs[i]?.tag === TAG.SEQUENCE ? children(tbs[i++]!) : [];
  const extensions = tbs[i]?.tag === 0xa0 ? readExtensionList(children(tbs[i++]!)[0]!) : [];
  if (i !== tbs.length) throw new DerError('TBSCertList has unexpected fields after its extensions');
  return { signed, innerAlgorithm, issuer, thisUpdate, nextUpdate, entries, extensions };
}

/**
 * ReasonFlags (§4.2.1.13) as a bit mask, bit k for the k-th named bit: unused (0), keyCompromise
 * (1), cACompromise, affiliationChanged, superseded, cessationOfOperation, certificateHold,
 * privilegeWithdrawn, aACompromise (8).
 */
export const ALL_REASONS = 0b1_1111_1110;

export function readReasonFlags(bits: Der): number {
  const content = bits.content;
  if (content.length === 0 || content[0]! > 7) throw new DerError('ReasonFlags is not a BIT STRING');
  let mask = 0;
  for (let k = 0; k < 9 && k < (content.length - 1) * 8; k++) if ((content[1 + (k >> 3)]! & (0x80 >> (k & 7))) !== 0) mask |= 1 << k;
  return mask;
}

/** DistributionPointName ::= CHOICE { fullName [0] GeneralNames, nameRelativeToCRLIssuer [1] RelativeDistinguishedName }. */
export type DistributionPointName = { fullName: Der[] } | { relative: Der };

function readDpName(node: Der): DistributionPointName {
  const choice = children(node)[0];
  if (choice?.tag === 0xa0) return { fullName: children(choice) };
  // [1] IMPLICIT RelativeDistinguishedName: the SET's content under the context tag.
  if (choice?.tag === 0xa1) return { relative: { tag: TAG.SET, raw: Uint8Array.of(TAG.SET, ...choice.raw.subarray(1)), content: choice.content } };
  throw new DerError('DistributionPointName is neither fullName [0] nor nameRelativeToCRLIssuer [1]');
}

export interface DistributionPoint {
  name: DistributionPointName | null;
  /** ReasonFlags mask, or null when absent (all reasons). */
  reasons: number | null;
  /** cRLIssuer GeneralNames, or null when the certificate's issuer issues the CRL. */
  crlIssuer: Der[] | null;
}

/** CRLDistributionPoints ::= SEQUENCE OF DistributionPoint (implicit tags, §4.2.1.13); null when absent. */
export function readDistributionPoints(cert: CertificateFields): DistributionPoint[] | null {
  const value = findExtension(cert, OID.cRLDistributionPoints);
  if (!value) return null;
  return children(expectTag(readDerExact(value), TAG.SEQUENCE, 'CRLDistributionPoints')).map((dp) => {
    const out: DistributionPoint = { name: null, reasons: null, crlIssuer: null };
    for (const part of children(expectTag(dp, TAG.SEQUENCE, 'DistributionPoint'))) {
      if (part.tag === 0xa0) out.name = readDpName(part);
      else if (part.tag === 0x81) out.reasons = readReasonFlags(part);
      else if (part.tag === 0xa2) out.crlIssuer = children(part);
      else throw new DerError(`DistributionPoint: unexpected tag 0x${part.tag.toString(16)}`);
    }
    // §4.2.1.13: "either distributionPoint or cRLIssuer MUST be present".
    if (!out.name && !out.crlIssuer) throw new DerError('a DistributionPoint has neither a name nor a cRLIssuer');
    return out;
  });
}

export interface IssuingDistributionPoint {
  name: DistributionPointName | null;
  onlyUserCerts: boolean;
  onlyCaCerts: boolean;
  onlySomeReasons: number | null;
  indirect: boolean;
  onlyAttributeCerts: boolean;
}

/** A [n] IMPLICIT BOOLEAN; DER leaves out the DEFAULT FALSE (X.690 §11.5). */
function flag(node: Der): boolean {
  if (node.content.length !== 1 || (node.content[0] !== 0xff && node.content[0] !== 0)) throw new DerError('an issuingDistributionPoint flag is not a BOOLEAN');
  return node.content[0] === 0xff;
}

/** IssuingDistributionPoint (§5.2.5), from the extension's value. */
export function readIssuingDistributionPoint(value: Uint8Array): IssuingDistributionPoint {
  const out: IssuingDistributionPoint = { name: null, onlyUserCerts: false, onlyCaCerts: false, onlySomeReasons: null, indirect: false, onlyAttributeCerts: false };
  for (const part of children(expectTag(readDerExact(value), TAG.SEQUENCE, 'IssuingDistributionPoint'))) {
    if (part.tag === 0xa0) out.name = readDpName(part);
    else if (part.tag === 0x81) out.onlyUserCerts = flag(part);
    else if (part.tag === 0x82) out.onlyCaCerts = flag(part);
    else if (part.tag === 0x83) out.onlySomeReasons = readReasonFlags(part);
    else if (part.tag === 0x84) out.indirect = flag(part);
    else if (part.tag === 0x85) out.onlyAttributeCerts = flag(part);
    else throw new DerError(`IssuingDistributionPoint: unexpected tag 0x${part.tag.toString(16)}`);
  }
  return out;
}
