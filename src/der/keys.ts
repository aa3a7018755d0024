/**
 * Key-related DER the chip bridge and the software signer need: the PKCS#1 DigestInfo for
 * SHA-256, the named curve of EC parameters, and the X9.62 point inside CKA_EC_POINT.
 */
import { decodeOid, derNull, DerError, octets, oid, readDer, readDerExact, seq, TAG } from './der';
import { OID } from './oids';

/** DigestInfo(sha256, digest) (RFC 8017 §9.2): what RSASSA-PKCS1-v1_5 (CKM_RSA_PKCS) signs. */
export function sha256DigestInfo(digest: Uint8Array): Uint8Array {
  if (digest.length !== 32) throw new DerError(`a SHA-256 digest is 32 bytes, got ${digest.length}`);
  return seq(seq(oid(OID.sha256), derNull()), octets(digest));
}

/** The curve of ECParameters (RFC 5480 §2.1.1: namedCurve only); null for any other curve or form. */
export function namedCurveOf(params: Uint8Array): 'p256' | 'secp256k1' | null {
  let curve: string;
  try {
    const node = readDerExact(params);
    if (node.tag !== TAG.OID) return null;
    curve = decodeOid(node.content);
  } catch {
    return null;
  }
  if (curve === OID.prime256v1) return 'p256';
  if (curve === OID.secp256k1) return 'secp256k1';
  return null;
}

/**
 * CKA_EC_POINT is the DER OCTET STRING wrapping the X9.62 point (PKCS#11 v2.40 §2.3.3); some
 * modules return the bare point. Returns the 65-byte uncompressed point 04‖X‖Y either way.
 */
export function unwrapEcPoint(value: Uint8Array): Uint8Array {
  let point = value;
  if (value[0] === TAG.OCTET_STRING && value.length !== 65) point = readDer(value, 0).content;
  if (point.length !== 65 || point[0] !== 0x04) {
    throw new DerError(`unsupported EC point (${point.length} bytes); expected an uncompressed 65-byte point`);
  }
  return point.slice();
}
