/**
 * X.509 CRLs (RFC 5280 §5): read and checked against their issuer (signature, issuer name), the
 * status of one serial read from them, and a CRL issued (the demo CA publishes one, made once at
 * `init` while its key exists). Pure: the times and the signing function come in.
 */
import {
  bytesEqual, children, ctx, derNull, DerError, expectTag, octets, oid, readDerExact, seq, TAG, tlv, uint, type Der,
} from '../der/der';
import { findExtension, readCertificate } from '../der/certificate-fields';
import { OID } from '../der/oids';
import { decodeTime } from '../der/time';
import { verifySignedSequence } from './verify-signature';

export interface Crl {
  raw: Uint8Array;
  /** CertificateList parts: tbsCertList, signatureAlgorithm, signatureValue. */
  signed: Der[];
  issuer: Uint8Array;
  thisUpdate: Date;
  nextUpdate: Date | null;
  /** Serial (INTEGER content, hex) -> revocation date. */
  revoked: Map<string, Date>;
}

export function parseCrl(der: Uint8Array): Crl {
  const signed = children(expectTag(readDerExact(der), TAG.SEQUENCE, 'CertificateList'));
  const tbs = children(expectTag(signed[0], TAG.SEQUENCE, 'TBSCertList'));
  let i = tbs[0]?.tag === TAG.INTEGER ? 1 : 0; // version OPTIONAL (v2)
  i++; // signature AlgorithmIdentifier
  const issuer = expectTag(tbs[i++], TAG.SEQUENCE, 'issuer').raw;
  const thisUpdate = decodeTime(tbs[i++], 'thisUpdate');
  let nextUpdate: Date | null = null;
  if (tbs[i]?.tag === TAG.UTC_TIME || tbs[i]?.tag === TAG.GENERALIZED_TIME) nextUpdate = decodeTime(tbs[i++], 'nextUpdate');
  const revoked = new Map<string, Date>();
  if (tbs[i]?.tag === TAG.SEQUENCE) {
    for (const entry of children(tbs[i]!)) {
      const [serial, date] = children(expectTag(entry, TAG.SEQUENCE, 'revokedCertificate'));
      revoked.set(Buffer.from(expectTag(serial, TAG.INTEGER, 'userCertificate').content).toString('hex'), decodeTime(date, 'revocationDate'));
    }
  }
  return { raw: der, signed, issuer, thisUpdate, nextUpdate, revoked };
}

export interface CrlVerdict {
  status: 'good' | 'revoked';
  revokedAt: Date | null;
  thisUpdate: Date;
  nextUpdate: Date | null;
}

/** The status of `certificate` in `crl`, after checking the CRL is its issuer's (§6.3.3 (f), (g)). */
export function checkCrl(crl: Crl, certificate: Uint8Array, issuer: Uint8Array): CrlVerdict {
  const cert = readCertificate(certificate);
  if (!bytesEqual(crl.issuer, cert.issuer.raw)) throw new DerError('the CRL is issued by another CA than the certificate');
  if (!verifySignedSequence(crl.signed, issuer)) throw new DerError("the CRL signature does not verify with the issuer's key");
  const revokedAt = crl.revoked.get(Buffer.from(cert.serial.content).toString('hex')) ?? null;
  return { status: revokedAt ? 'revoked' : 'good', revokedAt, thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate };
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
