/**
 * The few DER reads the bridge needs (X.690): EC parameters and points from PKCS#11 attributes,
 * issuer and subject names of a certificate, and the PKCS#1 DigestInfo for SHA-256. Pure.
 */
import { ChipError } from '../../errors/errors';
import type { ChipKeyAlgorithm } from '../types';

interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the first content byte. */
  contentStart: number;
  /** Offset just past the content. */
  end: number;
}

export function readTlv(bytes: Uint8Array, offset: number): Tlv {
  const tag = bytes[offset];
  let lengthByte = bytes[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new ChipError('truncated DER');
  let cursor = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new ChipError('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i += 1) {
      lengthByte = bytes[cursor];
      if (lengthByte === undefined) throw new ChipError('truncated DER');
      length = length * 256 + lengthByte;
      cursor += 1;
    }
  }
  const end = cursor + length;
  if (end > bytes.length) throw new ChipError('truncated DER');
  return { tag, start: offset, contentStart: cursor, end };
}

// namedCurve OIDs as DER (RFC 5480 §2.1.1.1): prime256v1/secp256r1 1.2.840.10045.3.1.7 and
// SEC 2 secp256k1 1.3.132.0.10.
const P256_OID = '06082a8648ce3d030107';
const SECP256K1_OID = '06052b8104000a';

/** The algorithm for CKA_EC_PARAMS (an ECParameters CHOICE; we accept namedCurve only). */
export function curveFromEcParams(params: Uint8Array): Exclude<ChipKeyAlgorithm, 'rsa'> | null {
  const hex = toHex(params);
  if (hex === P256_OID) return 'p256';
  if (hex === SECP256K1_OID) return 'secp256k1';
  return null;
}

/**
 * CKA_EC_POINT is the DER OCTET STRING wrapping the X9.62 point (v2.40 §2.3.3); some modules
 * return the bare point. Returns the 65-byte uncompressed point 04‖X‖Y either way.
 */
export function unwrapEcPoint(value: Uint8Array): Uint8Array {
  let point = value;
  if (value[0] === 0x04 && value.length !== 65) {
    const tlv = readTlv(value, 0);
    point = value.subarray(tlv.contentStart, tlv.end);
  }
  if (point.length !== 65 || point[0] !== 0x04) {
    throw new ChipError(`unsupported EC point (${point.length} bytes); expected an uncompressed 65-byte point`);
  }
  return point.slice();
}

/** Raw DER of a certificate's issuer and subject Names (RFC 5280 §4.1, TBSCertificate). */
export function certificateNames(certificate: Uint8Array): { issuer: Uint8Array; subject: Uint8Array } {
  const outer = readTlv(certificate, 0);
  const tbs = readTlv(certificate, outer.contentStart);
  let cursor = tbs.contentStart;
  const next = (): Tlv => {
    const tlv = readTlv(certificate, cursor);
    cursor = tlv.end;
    return tlv;
  };
  let field = next();
  if (field.tag === 0xa0) field = next(); // [0] EXPLICIT version, absent for v1
  next(); // signature AlgorithmIdentifier (field was serialNumber)
  const issuer = next();
  next(); // validity
  const subject = next();
  return {
    issuer: certificate.slice(issuer.start, issuer.end),
    subject: certificate.slice(subject.start, subject.end),
  };
}

/** The SubjectPublicKeyInfo DER of a certificate (TBSCertificate's seventh field). */
export function certificatePublicKeyInfo(certificate: Uint8Array): Uint8Array {
  const outer = readTlv(certificate, 0);
  const tbs = readTlv(certificate, outer.contentStart);
  let cursor = tbs.contentStart;
  let field = readTlv(certificate, cursor);
  if (field.tag === 0xa0) cursor = field.end;
  for (let i = 0; i < 5; i += 1) cursor = readTlv(certificate, cursor).end; // serial..subject
  field = readTlv(certificate, cursor);
  return certificate.slice(field.start, field.end);
}

// DigestInfo prefix for SHA-256 (RFC 8017 §9.2 note 1): SEQUENCE { AlgorithmIdentifier sha256 NULL, OCTET STRING(32) }.
const SHA256_DIGEST_INFO_PREFIX = Uint8Array.from([
  0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
  0x20,
]);

/** DigestInfo(sha256, digest): what CKM_RSA_PKCS signs for RSASSA-PKCS1-v1_5 with SHA-256. */
export function sha256DigestInfo(digest: Uint8Array): Uint8Array {
  const out = new Uint8Array(SHA256_DIGEST_INFO_PREFIX.length + digest.length);
  out.set(SHA256_DIGEST_INFO_PREFIX, 0);
  out.set(digest, SHA256_DIGEST_INFO_PREFIX.length);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
