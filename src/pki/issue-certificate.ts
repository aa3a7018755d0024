/**
 * Issues X.509 v3 certificates by hand on DER (RFC 5280 §4.1) for the demo CA and demo signer of
 * `init --embedded`: node-forge cannot create EC certificates. Pure: the caller passes `sign`
 * (backed by node:crypto or @noble/curves), the serial and the dates.
 */
import { createHash } from 'node:crypto';
import { InvalidInputError, SigningError } from '../domain/errors';
import {
  bool, concat, ctx, derNull, expectTag, oid, octets, readDerExact, seq, TAG, tlv, uint, unsignedIntegerContent,
} from '../der/der';
import { findExtension, readCertificate, readSpkiKeyBits } from '../der/certificate-fields';
import { OID } from '../der/oids';
import { encodeName, type SimpleName } from './distinguished-name';

export interface IssueCertificateOptions {
  subject: SimpleName;
  /** 'self' for a self-signed root; otherwise issuerCertificate must be given too. */
  issuer: SimpleName | 'self';
  /** SubjectPublicKeyInfo DER of the key being certified. */
  subjectPublicKey: Uint8Array;
  /** Serial as an unsigned big-endian magnitude (RFC 5280 §4.1.2.2); the caller draws it at random. */
  serial: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  issuerAlgorithm: 'rsa' | 'p256';
  /** Signs the TBSCertificate bytes with SHA-256: RSA PKCS#1 v1.5, or ECDSA (DER, or raw r‖s). */
  sign: (tbs: Uint8Array) => Uint8Array;
  /** The issuer's certificate: its subject Name is copied byte for byte and its key id becomes our AKI. */
  issuerCertificate?: Uint8Array;
  /** cRLDistributionPoints URLs (RFC 5280 §4.2.1.13): where verifiers and B-LT find the CA's CRL. */
  crlUrls?: string[];
}

/** CRLDistributionPoints with one DistributionPoint { distributionPoint [0] { fullName [0] { URI [6] … } } }. */
function crlDistributionPoints(urls: string[]): Uint8Array {
  const names = urls.map((u) => tlv(0x86, new TextEncoder().encode(u)));
  return seq(seq(ctx(0, ctx(0, ...names))));
}

/** RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING value. */
function keyIdentifier(spki: Uint8Array): Uint8Array {
  const bits = readSpkiKeyBits(expectTag(readDerExact(spki), TAG.SEQUENCE, 'SubjectPublicKeyInfo'));
  return new Uint8Array(createHash('sha1').update(bits).digest());
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050; seconds, no fractions, "Z". */
function encodeTime(d: Date): Uint8Array {
  if (Number.isNaN(d.getTime())) throw new InvalidInputError('certificate validity date is not a valid Date');
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  const year = d.getUTCFullYear();
  const utc = year >= 1950 && year < 2050;
  return tlv(utc ? TAG.UTC_TIME : TAG.GENERALIZED_TIME, new TextEncoder().encode(`${utc ? digits.slice(2) : digits}Z`));
}

const extension = (id: string, critical: boolean, value: Uint8Array): Uint8Array =>
  critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));

function issuerParts(o: IssueCertificateOptions, subjectName: Uint8Array, subjectKeyId: Uint8Array) {
  if (o.issuer === 'self') return { name: subjectName, keyId: subjectKeyId };
  if (!o.issuerCertificate) {
    throw new InvalidInputError('issuerCertificate is required unless issuer is "self" (it gives the issuer name and key id)');
  }
  const f = readCertificate(o.issuerCertificate);
  const ski = findExtension(f, OID.subjectKeyIdentifier);
  const keyId = ski ? expectTag(readDerExact(ski), TAG.OCTET_STRING, 'subjectKeyIdentifier').content : keyIdentifier(f.spki.raw);
  return { name: f.subject.raw, keyId };
}

function signatureValue(o: IssueCertificateOptions, tbs: Uint8Array): Uint8Array {
  const value = o.sign(tbs);
  if (o.issuerAlgorithm === 'rsa' || value[0] === TAG.SEQUENCE) return value;
  if (value.length !== 64) throw new SigningError(`ECDSA signer returned ${value.length} bytes: expected DER or 64-byte r‖s`);
  // RFC 5480 §2.2: Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }
  return seq(uint(value.subarray(0, 32)), uint(value.subarray(32)));
}

export function issueCertificate(o: IssueCertificateOptions): Uint8Array {
  // The serial bytes are an unsigned magnitude; encoded (with a 0x00 before a high bit) it must fit 20 octets.
  const serial = unsignedIntegerContent(o.serial);
  if (o.serial.every((b) => b === 0) || serial.length > 20) {
    throw new InvalidInputError('certificate serial must be non-zero and fit 20 octets as a positive INTEGER (RFC 5280 §4.1.2.2)');
  }
  if (!(o.notAfter.getTime() > o.notBefore.getTime())) throw new InvalidInputError('certificate notAfter must be after notBefore');
  const subjectName = encodeName(o.subject);
  const subjectKeyId = keyIdentifier(o.subjectPublicKey);
  const issuer = issuerParts(o, subjectName, subjectKeyId);
  const sigAlg = o.issuerAlgorithm === 'rsa' ? seq(oid(OID.sha256WithRSA), derNull()) : seq(oid(OID.ecdsaWithSha256));
  // keyUsage bits (RFC 5280 §4.2.1.3): digitalSignature(0), nonRepudiation(1), keyCertSign(5), cRLSign(6).
  // DER BIT STRING drops trailing zero bits (X.690 §11.2.2): first octet counts the unused bits.
  const keyUsage = o.ca ? Uint8Array.of(0x03, 0x02, 0x01, 0x06) : Uint8Array.of(0x03, 0x02, 0x06, 0xc0);
  const extensions = [
    extension(OID.basicConstraints, true, o.ca ? seq(bool(true)) : seq()),
    extension(OID.keyUsage, true, keyUsage),
    extension(OID.subjectKeyIdentifier, false, octets(subjectKeyId)),
    extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, issuer.keyId))), // keyIdentifier [0] IMPLICIT
    ...(o.crlUrls?.length ? [extension(OID.cRLDistributionPoints, false, crlDistributionPoints(o.crlUrls))] : []),
    // No extendedKeyUsage: pdfsig and Adobe accept signers with none (CONTRACT `init --embedded`).
  ];
  const tbs = seq(
    ctx(0, uint(2)), // v3
    tlv(TAG.INTEGER, serial),
    sigAlg,
    issuer.name,
    seq(encodeTime(o.notBefore), encodeTime(o.notAfter)),
    subjectName,
    o.subjectPublicKey,
    ctx(3, seq(...extensions)),
  );
  const signature = signatureValue(o, tbs);
  return seq(tbs, sigAlg, tlv(TAG.BIT_STRING, concat([Uint8Array.of(0), signature])));
}

