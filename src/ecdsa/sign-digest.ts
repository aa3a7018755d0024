import { createECDH, createHmac, randomBytes, type ECDH } from 'node:crypto';
import { SigningError } from '../domain/errors';

/**
 * ECDSA over a given 32-byte digest, as a chip's CKM_ECDSA signs (PKCS#11 v2.40 §2.3.6), for the
 * software chip's two curves: P-256 (its PAdES signatures) and secp256k1 (its EVM signatures).
 * Node's `crypto.sign` hashes what it is given, and the engines hand over a digest, so the
 * signature is put together here (FIPS 186-4 §6.4; SEC 1 §4.1.3), with its costly steps native:
 * - k by RFC 6979 §3.2 with HMAC-SHA-256, so a faulty random source can never repeat or bias a
 *   nonce; the same k as noble's signatures (the tests compare);
 * - k·G by OpenSSL: the public key of an ECDH key pair for k, computed with OpenSSL's
 *   constant-time ladder. It needs no table, so a fresh signing thread signs at once; noble's
 *   secp256k1 signature first built tables of G for 40 to 100 ms (a CPU profile of a signing
 *   thread's warm-up, on a 2-core machine);
 * - the one modular inverse of the nonce is of k times a random blind, so its time says nothing
 *   of k.
 */

export type EcdsaCurve = 'p256' | 'secp256k1';

interface Curve {
  /** OpenSSL's name of the curve. */
  openssl: string;
  /** The order n of its base point G. */
  n: bigint;
  label: string;
}

const CURVES: Record<EcdsaCurve, Curve> = {
  // FIPS 186-4 §D.1.2.3.
  p256: { openssl: 'prime256v1', n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n, label: 'P-256' },
  // SEC 2 §2.4.1.
  secp256k1: { openssl: 'secp256k1', n: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n, label: 'secp256k1' },
};

const BYTES = 32;

/** One ECDH object per curve and thread, its private key set per signature. */
const ecdhs = new Map<EcdsaCurve, ECDH>();
function ecdhOf(curve: EcdsaCurve): ECDH {
  let ecdh = ecdhs.get(curve);
  if (!ecdh) {
    ecdh = createECDH(CURVES[curve].openssl);
    ecdhs.set(curve, ecdh);
  }
  return ecdh;
}

function toBig(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') || '0'}`);
}

function toBytes(x: bigint): Buffer {
  return Buffer.from(x.toString(16).padStart(BYTES * 2, '0'), 'hex');
}

function mod(a: bigint, n: bigint): bigint {
  const r = a % n;
  return r < 0n ? r + n : r;
}

/** a⁻¹ mod n (extended Euclid); a is not 0 mod n. */
function invert(a: bigint, n: bigint): bigint {
  let [r0, r1, s0, s1] = [n, mod(a, n), 0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return mod(s0, n);
}

const hmac = (key: Uint8Array, ...parts: Uint8Array[]): Uint8Array => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** The secret scalar, refused unless it is 32 bytes in [1, n-1]. */
function secretScalar(c: Curve, secretKey: Uint8Array): bigint {
  const d = secretKey instanceof Uint8Array && secretKey.length === BYTES ? toBig(secretKey) : 0n;
  if (d <= 0n || d >= c.n) throw new SigningError(`not a ${c.label} secret key`);
  return d;
}

/**
 * A signature with what its recovery check needs (signDigestRecoverable): the nonce k, the x of
 * its point R = k·G and the parity of R's y, the secret d and the digest as a number e. Nothing
 * here leaves this module but r and s; exported as a type for the check's tests.
 */
export interface SignedWithNonce {
  r: bigint;
  s: bigint;
  k: bigint;
  rPointX: bigint;
  rPointOdd: boolean;
  d: bigint;
  e: bigint;
}

function sign(curve: EcdsaCurve, secretKey: Uint8Array, digest: Uint8Array): SignedWithNonce {
  const c = CURVES[curve];
  if (!(digest instanceof Uint8Array) || digest.length !== BYTES) {
    throw new SigningError(`${c.label} signs a 32-byte digest, got ${digest instanceof Uint8Array ? `${digest.length} bytes` : typeof digest}`);
  }
  const d = secretScalar(c, secretKey);
  // qlen = hlen = 256: bits2int is the digest as a number, bits2octets that number mod n.
  const e = mod(toBig(digest), c.n);
  const x = toBytes(d);
  const h = toBytes(e);
  let v: Uint8Array = Buffer.alloc(BYTES, 0x01);
  let k: Uint8Array = Buffer.alloc(BYTES, 0x00);
  k = hmac(k, v, Uint8Array.of(0x00), x, h);
  v = hmac(k, v);
  k = hmac(k, v, Uint8Array.of(0x01), x, h);
  v = hmac(k, v);
  const ecdh = ecdhOf(curve);
  for (;;) {
    v = hmac(k, v);
    const nonce = toBig(v);
    if (nonce > 0n && nonce < c.n) {
      ecdh.setPrivateKey(v);
      // 04‖X‖Y: R = k·G.
      const point = ecdh.getPublicKey();
      const rPointX = toBig(point.subarray(1, 1 + BYTES));
      const r = mod(rPointX, c.n);
      if (r !== 0n) {
        const blind = mod(toBig(randomBytes(BYTES + 16)), c.n) || 1n;
        const s = mod(invert(nonce * blind, c.n) * mod(blind * mod(e + r * d, c.n), c.n), c.n);
        if (s !== 0n) return { r, s, k: nonce, rPointX, rPointOdd: (point[point.length - 1]! & 1) === 1, d, e };
      }
    }
    // RFC 6979 §3.2 h.3: the next candidate.
    k = hmac(k, v, Uint8Array.of(0x00));
    v = hmac(k, v);
  }
}

/** The signature as r‖s (64 bytes, big-endian), s not normalised: what CKM_ECDSA gives. */
export function signDigest(curve: EcdsaCurve, secretKey: Uint8Array, digest: Uint8Array): Uint8Array {
  const { r, s } = sign(curve, secretKey, digest);
  return new Uint8Array(Buffer.concat([toBytes(r), toBytes(s)]));
}

/**
 * Public keys already found to be d·G here, by their hex, with their d (one k·G each, once per key
 * and thread): the same key given with another secret is checked again, and refused.
 */
const matchedKeys = new Map<string, bigint>();

/** The public key d·G of a secret key, as the uncompressed point 04‖X‖Y (SEC 1 §2.3.3), by OpenSSL. */
export function publicPointOf(curve: EcdsaCurve, secretKey: Uint8Array): Uint8Array {
  const c = CURVES[curve];
  secretScalar(c, secretKey);
  const ecdh = ecdhOf(curve);
  ecdh.setPrivateKey(secretKey);
  return new Uint8Array(ecdh.getPublicKey());
}

export const DOES_NOT_RECOVER = 'signature does not recover to the credential address';

/**
 * A signature with a low s (s ≤ n/2: EIP-2, BIP 62) and its recovery id, checked to recover to
 * `publicKey` (04‖X‖Y, the credential's key as the chip lists it) before it is returned, as
 * CONTRACT "Result semantics" asks of an EVM signature, without any table of points:
 * - `publicKey` is d·G, computed by OpenSSL from the secret d (once per key and thread);
 * - for the final (r, s′), recovery with id v (SEC 1 §4.1.6) takes R_v, the point with x = r and
 *   y of parity v, and gives Q′ = r⁻¹(s′·R_v − e·G). The nonce's point R = k·G is known here,
 *   whole, from OpenSSL. With k′ = s′⁻¹(e + r·d) mod n: if k′ = k, then s′·R = (e + r·d)·G and
 *   Q′ = d·G for R_v = R, so v is the parity of R's y; if k′ = n − k, the same holds for
 *   R_v = −R, whose y has the other parity; anything else does not recover to d·G under any id.
 *   R's x must be r itself: an x of n or more needs the ids 2 and 3, which EVM `v` cannot express.
 * Throws SigningError when a check fails.
 */
export function signDigestRecoverable(curve: EcdsaCurve, secretKey: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): { r: bigint; s: bigint; recoveryId: 0 | 1 } {
  const c = CURVES[curve];
  const signed = sign(curve, secretKey, digest);
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('hex');
  if (matchedKeys.get(id) !== signed.d) {
    if (!Buffer.from(publicPointOf(curve, secretKey)).equals(publicKey)) throw new SigningError(DOES_NOT_RECOVER);
    matchedKeys.set(id, signed.d);
  }
  const s = lowS(curve, signed.s);
  return { r: signed.r, s, recoveryId: recoveryIdOf(curve, signed, s) };
}

/**
 * s brought to the low half, n − s when s > n/2 (EIP-2, BIP 62): (r, s) and (r, n − s) are both
 * valid ECDSA signatures of the same digest, and Ethereum accepts only the low one. n − s is the
 * signature of the mirrored nonce point −R, so its recovery id is the other one.
 */
export function lowS(curve: EcdsaCurve, s: bigint): bigint {
  const { n } = CURVES[curve];
  return s > n >> 1n ? n - s : s;
}

/** The recovery id under which (r, s′) recovers to d·G (signDigestRecoverable); throws SigningError when there is none. */
export function recoveryIdOf(curve: EcdsaCurve, signed: SignedWithNonce, sFinal: bigint): 0 | 1 {
  const c = CURVES[curve];
  if (signed.rPointX !== signed.r) throw new SigningError('signature needs recovery id 2 or 3, which EVM v cannot express');
  // k′ = s′⁻¹(e + r·d) is k exactly when s′·k ≡ e + r·d, and n − k when s′·k ≡ −(e + r·d) (mod n):
  // two products instead of an inverse (about 25 µs of a signature's 450, on a 2-core machine).
  const z = mod(signed.e + signed.r * signed.d, c.n);
  const sk = mod(sFinal * signed.k, c.n);
  const odd = signed.rPointOdd ? 1 : 0;
  if (z !== 0n && sk === z) return odd;
  if (z !== 0n && sk === c.n - z) return odd === 1 ? 0 : 1;
  throw new SigningError(DOES_NOT_RECOVER);
}
