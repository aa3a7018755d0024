/**
 * X.509 CRLs (RFC 5280 §5): read into what the revocation check needs (pki/revocation.ts): the
 * issuer, the update times, the CRL number or delta base, the issuing distribution point, the
 * entries by serial with the certificate issuer each names (§5.3.3, indirect CRLs) and its
 * reason, and every critical extension this reader does not understand (§5.2, §5.3: such a CRL
 * MUST NOT be used). And a CRL issued (the demo CA publishes one, made once at `init` while its
 * key exists). Pure: the times and the signing function come in.
 */
import {
  bytesEqual, children, ctx, derNull, DerError, expectTag, integerValue, octets, oid, readDerExact, seq, TAG, tlv, toHex, uint, type Der,
} from '../der/der';
import { findExtension, readCertificate } from '../der/certificate-fields';
import { readCertificateList, readIssuingDistributionPoint, type IssuingDistributionPoint } from '../der/crl-fields';
import { OID } from '../der/oids';
import { decodeTime } from '../der/time';
import { GENERAL_NAME, readExtensionList, readGeneralNames } from '../der/x509-constraints';
import { nameKey } from './name-match';
import { verifySignedSequence } from './verify-signature';

/** CRL extensions (§5.2) this reader acts on or may ignore; any other that is critical makes the CRL unusable. */
const CRL_EXTENSIONS = {
  authorityKeyIdentifier: '2.5.29.35',
  issuerAltName: '2.5.29.18',
  cRLNumber: '2.5.29.20',
  deltaCRLIndicator: '2.5.29.27',
  issuingDistributionPoint: '2.5.29.28',
  freshestCRL: '2.5.29.46',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  expiredCertsOnCRL: '2.5.29.60', // X.509 (2019) §9.6.2.9: informative
} as const;

/** CRL entry extensions (§5.3). */
const ENTRY_EXTENSIONS = { reasonCode: '2.5.29.21', holdInstructionCode: '2.5.29.23', invalidityDate: '2.5.29.24', certificateIssuer: '2.5.29.29' } as const;

/** CRLReason (§5.3.1), by its ENUMERATED value; 7 is not used. */
export const CRL_REASONS = [
  'unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold', '(7)', 'removeFromCRL', 'privilegeWithdrawn', 'aACompromise',
] as const;

export interface CrlEntry {
  revokedAt: Date;
  /** A CRL_REASONS name, or null without a reasonCode. */
  reason: string | null;
  /** nameKeys of the certificate issuer the entry is about (§5.3.3: the CRL issuer until a certificateIssuer entry extension says otherwise). */
  issuerKeys: string[];
}

export interface Crl {
  raw: Uint8Array;
  /** CertificateList parts: tbsCertList, signatureAlgorithm, signatureValue. */
  signed: Der[];
  issuer: Der;
  issuerKey: string;
  thisUpdate: Date;
  nextUpdate: Date | null;
  crlNumber: bigint | null;
  /** deltaCRLIndicator's BaseCRLNumber: set exactly for a delta CRL (§5.2.4). */
  deltaBase: bigint | null;
  idp: IssuingDistributionPoint | null;
  /** The issuingDistributionPoint extension's DER, compared whole between a delta CRL and its base (§6.3.3 (c)(2)). */
  idpRaw: Uint8Array | null;
  authorityKeyId: Uint8Array | null;
  /** Why this CRL MUST NOT be used (§5.2, §5.3: critical extensions not understood; §5.1.2.2). */
  unusable: string[];
  /** Entries by serial number (the INTEGER's content octets, hex). */
  entries: Map<string, CrlEntry[]>;
}

/** The directoryName entries of GeneralNames as nameKeys; other forms cannot name a certificate issuer here. */
function directoryNameKeys(names: Der[]): string[] {
  return names.filter((n) => n.tag === GENERAL_NAME.directoryName).map((n) => nameKey(children(n)[0]!));
}

function readReason(value: Uint8Array): string {
  const code = expectTag(readDerExact(value), 0x0a, 'CRLReason').content;
  const name = code.length === 1 ? CRL_REASONS[code[0]!] : undefined;
  if (!name || code[0] === 7) throw new DerError(`CRLReason ${toHex(code)} is not a reason code`);
  return name;
}

export function parseCrl(der: Uint8Array): Crl {
  const f = readCertificateList(der);
  const unusable: string[] = [];
  // §5.1.1.2: signatureAlgorithm "MUST contain the same algorithm identifier as the signature field in the sequence tbsCertList".
  if (!bytesEqual(f.innerAlgorithm.raw, expectTag(f.signed[1], TAG.SEQUENCE, 'signatureAlgorithm').raw)) unusable.push('its two signature algorithm fields differ');
  const issuerKey = nameKey(f.issuer);
  const crl: Crl = {
    raw: der, signed: f.signed, issuer: f.issuer, issuerKey, thisUpdate: decodeTime(f.thisUpdate, 'thisUpdate'), nextUpdate: f.nextUpdate ? decodeTime(f.nextUpdate, 'nextUpdate') : null,
    crlNumber: null, deltaBase: null, idp: null, idpRaw: null, authorityKeyId: null, unusable, entries: new Map(),
  };
  const known = new Set<string>(Object.values(CRL_EXTENSIONS));
  for (const e of f.extensions) {
    if (e.id === CRL_EXTENSIONS.cRLNumber) crl.crlNumber = integerValue(expectTag(readDerExact(e.value), TAG.INTEGER, 'CRLNumber').content);
    else if (e.id === CRL_EXTENSIONS.deltaCRLIndicator) crl.deltaBase = integerValue(expectTag(readDerExact(e.value), TAG.INTEGER, 'BaseCRLNumber').content);
    else if (e.id === CRL_EXTENSIONS.issuingDistributionPoint) {
      crl.idp = readIssuingDistributionPoint(e.value);
      crl.idpRaw = e.value;
    } else if (e.id === CRL_EXTENSIONS.authorityKeyIdentifier) {
      crl.authorityKeyId = children(expectTag(readDerExact(e.value), TAG.SEQUENCE, 'AuthorityKeyIdentifier')).find((p) => p.tag === 0x80)?.content ?? null;
    } else if (e.critical && !known.has(e.id)) unusable.push(`unknown critical CRL extension ${e.id}`);
  }
  let entryIssuers = [issuerKey];
  for (const entry of f.entries) {
    const [serial, date, extensions] = children(expectTag(entry, TAG.SEQUENCE, 'revokedCertificate'));
    let reason: string | null = null;
    for (const e of extensions ? readExtensionList(extensions) : []) {
      if (e.id === ENTRY_EXTENSIONS.reasonCode) reason = readReason(e.value);
      // §5.3.3: this entry and the ones after it, until the next, are about this issuer (indirect CRLs only).
      else if (e.id === ENTRY_EXTENSIONS.certificateIssuer) entryIssuers = directoryNameKeys(readGeneralNames(e.value));
      else if (e.critical && !Object.values(ENTRY_EXTENSIONS).includes(e.id as never)) unusable.push(`unknown critical CRL entry extension ${e.id}`);
    }
    const key = toHex(expectTag(serial, TAG.INTEGER, 'userCertificate').content);
    const list = crl.entries.get(key) ?? [];
    list.push({ revokedAt: decodeTime(date, 'revocationDate'), reason, issuerKeys: entryIssuers });
    crl.entries.set(key, list);
  }
  return crl;
}

/** The entry of `crl` about the certificate with serial `serial` (INTEGER content) issued by `issuerKey`, or null. */
export function findEntry(crl: Crl, serial: Uint8Array, issuerKey: string): CrlEntry | null {
  return crl.entries.get(toHex(serial))?.find((e) => e.issuerKeys.includes(issuerKey)) ?? null;
}

export interface CrlVerdict {
  status: 'good' | 'revoked';
  revokedAt: Date | null;
  thisUpdate: Date;
  nextUpdate: Date | null;
}

/**
 * The status of `certificate` in its issuer's own complete CRL, for fetching B-LT's data
 * (signing/online/revocation-client.ts): the CRL usable (§5.2, §5.3), issued by the
 * certificate's issuer by name and key (§6.3.3 (b)(1), (g)), and complete (no delta indicator).
 */
export function checkCrl(crl: Crl, certificate: Uint8Array, issuer: Uint8Array): CrlVerdict {
  const cert = readCertificate(certificate);
  if (crl.issuerKey !== nameKey(cert.issuer)) throw new DerError('the CRL is issued by another CA than the certificate');
  if (crl.unusable.length > 0) throw new DerError(`the CRL cannot be used: ${crl.unusable.join('; ')}`);
  if (crl.deltaBase !== null) throw new DerError('the CRL is a delta CRL, not a complete one');
  if (!verifySignedSequence(crl.signed, issuer)) throw new DerError("the CRL signature does not verify with the issuer's key");
  const entry = findEntry(crl, cert.serial.content, crl.issuerKey);
  const revoked = entry !== null && entry.reason !== 'removeFromCRL';
  return { status: revoked ? 'revoked' : 'good', revokedAt: revoked ? entry.revokedAt : null, thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate };
}

/** RFC 5280 §5.1.2.4: UTCTime through 2049, GeneralizedTime after. */
function time(d: Date): Uint8Array {
  const digits = d.toISOString().slice(0, 19).replace(/[-T:]/g, '');
  const utc = d.getUTCFullYear() < 2050;
  return tlv(utc ? TAG.UTC_TIME : TAG.GENERALIZED_TIME, new TextEncoder().encode(`${utc ? digits.slice(2) : digits}Z`));
}

export interface IssueCrlOptions {
  issuerCertificate: Uint8Array;
  issuerAlgorithm: 'rsa' | 'p256';
  thisUpdate: Date;
  nextUpdate: Date;
  crlNumber: number;
  /** Serials (unsigned magnitudes) with their revocation dates. */
  revoked?: { serial: Uint8Array; date: Date }[];
  /** Signs the TBSCertList with SHA-256 (RSA PKCS#1 v1.5, or ECDSA as DER or raw r‖s). */
  sign: (tbs: Uint8Array) => Uint8Array;
}

/** A v2 CRL (§5.1) with the authorityKeyIdentifier and cRLNumber extensions §5.2 requires. */
export function issueCrl(o: IssueCrlOptions): Uint8Array {
  const issuer = readCertificate(o.issuerCertificate);
  const ski = findExtension(issuer, OID.subjectKeyIdentifier);
  if (!ski) throw new DerError('the issuer certificate has no subjectKeyIdentifier for the CRL authorityKeyIdentifier');
  const keyId = expectTag(readDerExact(ski), TAG.OCTET_STRING, 'subjectKeyIdentifier').content;
  const sigAlg = o.issuerAlgorithm === 'rsa' ? seq(oid(OID.sha256WithRSA), derNull()) : seq(oid(OID.ecdsaWithSha256));
  const revoked = (o.revoked ?? []).map((r) => seq(uint(r.serial), time(r.date)));
  const tbs = seq(
    uint(1), // v2
    sigAlg,
    issuer.subject.raw,
    time(o.thisUpdate),
    time(o.nextUpdate),
    ...(revoked.length ? [seq(...revoked)] : []),
    ctx(0, seq(
      seq(oid(OID.authorityKeyIdentifier), octets(seq(tlv(0x80, keyId)))),
      seq(oid(OID.cRLNumber), octets(uint(o.crlNumber))),
    )),
  );
  let signature = o.sign(tbs);
  if (o.issuerAlgorithm === 'p256' && signature.length === 64 && signature[0] !== TAG.SEQUENCE) {
    signature = seq(uint(signature.subarray(0, 32)), uint(signature.subarray(32)));
  }
  return seq(tbs, sigAlg, tlv(TAG.BIT_STRING, Uint8Array.of(0), signature));
}
