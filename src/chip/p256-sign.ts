import { createECDH, createHmac, randomBytes, type ECDH } from 'node:crypto';

/**
 * ECDSA on P-256 over a given 32-byte digest, as a chip's CKM_ECDSA signs (PKCS#11 v2.40 §2.3.6):
 * the software chip's PAdES signature. Node's `crypto.sign` hashes what it is given, and the
 * engines hand over a digest (engine.ts), so the signature is put together here (FIPS 186-4
 * §6.4), with its two costly steps native:
 * - k·G by OpenSSL (an ECDH key pair for k: its public key is k·G), 36 µs where noble's whole
 *   signature took 0.9 to 1.2 ms (a throwaway script on a 2-core machine);
 * - k from the key and the digest by RFC 6979 §3.2 with HMAC-SHA-256, so a faulty random source
 *   can never repeat or bias a nonce (the same k as noble's signatures: the tests compare).
 * The one modular inverse is of k times a random blind, so its time says nothing of k.
 */

/** The order of P-256's base point (FIPS 186-4 §D.1.2.3). */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const BYTES = 32;

let ecdh: ECDH | undefined;

function toBig(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') || '0'}`);
}

function toBytes(x: bigint): Buffer {
  return Buffer.from(x.toString(16).padStart(BYTES * 2, '0'), 'hex');
}

function mod(a: bigint): bigint {
  const r = a % N;
  return r < 0n ? r + N : r;
}

/** a⁻¹ mod N (extended Euclid); a is not 0 mod N. */
function invert(a: bigint): bigint {
  let [r0, r1, s0, s1] = [N, mod(a), 0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return mod(s0);
}

const hmac = (key: Uint8Array, ...parts: Uint8Array[]): Uint8Array => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** The signature as r‖s (64 bytes, big-endian), not normalised to a low s (CMS verifiers take both). */
export function signDigestP256(secretKey: Uint8Array, digest: Uint8Array): Uint8Array {
  if (digest.length !== BYTES) throw new Error(`P-256 signs a 32-byte digest, got ${digest.length} bytes`);
  const d = toBig(secretKey);
  if (secretKey.length !== BYTES || d <= 0n || d >= N) throw new Error('not a P-256 secret key');
  // qlen = hlen = 256: bits2int is the digest as a number, bits2octets that number mod N.
  const z = toBig(digest);
  const x = toBytes(d);
  const h = toBytes(mod(z));
  let v: Uint8Array = Buffer.alloc(BYTES, 0x01);
  let k: Uint8Array = Buffer.alloc(BYTES, 0x00);
  k = hmac(k, v, Uint8Array.of(0x00), x, h);
  v = hmac(k, v);
  k = hmac(k, v, Uint8Array.of(0x01), x, h);
  v = hmac(k, v);
  ecdh ??= createECDH('prime256v1');
  for (;;) {
    v = hmac(k, v);
    const nonce = toBig(v);
    if (nonce > 0n && nonce < N) {
      ecdh.setPrivateKey(v);
      const r = mod(toBig(ecdh.getPublicKey().subarray(1, 1 + BYTES)));
      if (r !== 0n) {
        const blind = mod(toBig(randomBytes(BYTES + 16))) || 1n;
        const s = mod(invert(nonce * blind) * mod(blind * mod(z + r * d)));
        if (s !== 0n) return new Uint8Array(Buffer.concat([toBytes(r), toBytes(s)]));
      }
    }
    // RFC 6979 §3.2 h.3: the next candidate.
    k = hmac(k, v, Uint8Array.of(0x00));
    v = hmac(k, v);
  }
}
