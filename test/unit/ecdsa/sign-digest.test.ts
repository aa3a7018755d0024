import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import * as secp from '@noble/secp256k1';
import { SigningKey } from 'ethers';
import { createHash, createPublicKey, verify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SigningError } from '../../../src/domain/errors';
import { DOES_NOT_RECOVER, publicPointOf, recoveryIdOf, signDigest, signDigestRecoverable, type SignedWithNonce } from '../../../src/ecdsa/sign-digest';

const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const sha256 = (m: string | Uint8Array) => new Uint8Array(createHash('sha256').update(m).digest());
const big = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
const N = secp256k1.Point.CURVE().n;
// @noble/secp256k1, the EVM library of the stack, signed the software chip's EVM signatures
// before OpenSSL's k·G: its signatures are the reference here. It takes its hashes from outside.
secp.hashes.sha256 = nobleSha256;
secp.hashes.hmacSha256 = (key, msg) => hmac(nobleSha256, key, msg);
const HALF_N = N >> 1n;

/** SubjectPublicKeyInfo DER of an EC point for OpenSSL: the fixed prefix of each curve (RFC 5480). */
const SPKI_PREFIX = {
  p256: '3059301306072a8648ce3d020106082a8648ce3d030107034200',
  secp256k1: '3056301006072a8648ce3d020106052b8104000a034200',
} as const;
function opensslVerifies(curve: 'p256' | 'secp256k1', point: Uint8Array, message: Uint8Array, rs: Uint8Array): boolean {
  const key = createPublicKey({ key: Buffer.concat([Buffer.from(SPKI_PREFIX[curve], 'hex'), point]), format: 'der', type: 'spki' });
  return verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, rs);
}

/** Each curve with the libraries its signatures and public keys are held to (RFC 6979, s not normalised). */
const REFERENCES = [
  { curve: 'p256', randomSecret: (seed: Uint8Array) => p256.utils.randomSecretKey(seed), signers: [p256.sign], publicKey: p256.getPublicKey },
  // @noble/secp256k1, the stack's EVM library, and @noble/curves' secp256k1.
  { curve: 'secp256k1', randomSecret: (seed: Uint8Array) => secp256k1.utils.randomSecretKey(seed), signers: [secp.sign, secp256k1.sign], publicKey: secp.getPublicKey },
] as const;

describe.each(REFERENCES)('signDigest, $curve', ({ curve, randomSecret, signers, publicKey }) => {
  it('signs as noble does, and OpenSSL verifies it (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), fc.uint8Array({ minLength: 48, maxLength: 48 }), (message, seed) => {
        // A key from 48 bytes, reduced into [1, n-1] as FIPS 186-4 B.4.1 does.
        const secret = randomSecret(seed);
        const digest = sha256(message);
        const sig = signDigest(curve, secret, digest);
        for (const sign of signers) expect(Buffer.from(sig).equals(Buffer.from(sign(digest, secret, { prehash: false, lowS: false, format: 'compact' })))).toBe(true);
        expect(Buffer.from(publicPointOf(curve, secret)).equals(Buffer.from(publicKey(secret, false)))).toBe(true);
        expect(opensslVerifies(curve, publicPointOf(curve, secret), message, sig)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('signDigest, P-256', () => {
  // RFC 6979 A.2.5, ECDSA with P-256 and SHA-256: the deterministic signatures of "sample" and "test".
  const key = hex('C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721');
  it.each([
    ['sample', 'EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716', 'F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8'],
    ['test', 'F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367', '019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083'],
  ])('gives RFC 6979’s signature of "%s"', (message, r, s) => {
    expect(Buffer.from(signDigest('p256', key, sha256(message))).toString('hex').toUpperCase()).toBe(r + s);
  });

  it('refuses a digest of another length and a key outside [1, n-1]', () => {
    expect(() => signDigest('p256', key, new Uint8Array(31))).toThrow(/32-byte digest/);
    expect(() => signDigest('p256', new Uint8Array(32), sha256('x'))).toThrow(/not a P-256 secret key/);
    expect(() => signDigest('p256', hex('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551'), sha256('x'))).toThrow(/not a P-256 secret key/);
    expect(() => publicPointOf('p256', new Uint8Array(32))).toThrow(/not a P-256 secret key/);
  });
});

describe('signDigest, secp256k1', () => {
  it('refuses a key outside [1, n-1]', () => {
    expect(() => signDigest('secp256k1', hex(N.toString(16)), sha256('x'))).toThrow(/not a secp256k1 secret key/);
    expect(() => signDigest('secp256k1', new Uint8Array(31).fill(1), sha256('x'))).toThrow(/not a secp256k1 secret key/);
  });
});

describe('signDigestRecoverable (the EVM signature and its recovery check)', () => {
  it('gives noble’s low-s signature and the id under which it recovers to the key; ethers agrees (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 48, maxLength: 48 }), (digest, seed) => {
        const secret = secp256k1.utils.randomSecretKey(seed);
        const publicKey = secp256k1.getPublicKey(secret, false);
        const { r, s, recoveryId } = signDigestRecoverable('secp256k1', secret, digest, publicKey);
        const noble = secp256k1.Signature.fromBytes(secp256k1.sign(digest, secret, { prehash: false, lowS: true, format: 'compact' }), 'compact');
        expect([r, s]).toEqual([noble.r, noble.s]);
        expect(s <= HALF_N).toBe(true);
        expect(new secp256k1.Signature(r, s, recoveryId).recoverPublicKey(digest).toBytes(false)).toEqual(publicKey);
        const other = (recoveryId ^ 1) as 0 | 1;
        expect(new secp256k1.Signature(r, s, other).recoverPublicKey(digest).toBytes(false)).not.toEqual(publicKey);
        const hex32 = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
        expect(SigningKey.recoverPublicKey(digest, { r: hex32(r), s: hex32(s), v: 27 + recoveryId })).toBe(`0x${Buffer.from(publicKey).toString('hex')}`);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses to sign for a public key that is not the secret’s', () => {
    const secret = secp256k1.utils.randomSecretKey(new Uint8Array(48).fill(7));
    const another = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(new Uint8Array(48).fill(8)), false);
    expect(() => signDigestRecoverable('secp256k1', secret, sha256('x'), another)).toThrow(DOES_NOT_RECOVER);
    // A key found to match once is remembered, and another's still refused after it; so is the
    // remembered key given with another secret.
    const own = secp256k1.getPublicKey(secret, false);
    signDigestRecoverable('secp256k1', secret, sha256('x'), own);
    expect(() => signDigestRecoverable('secp256k1', secret, sha256('y'), another)).toThrow(DOES_NOT_RECOVER);
    const otherSecret = secp256k1.utils.randomSecretKey(new Uint8Array(48).fill(8));
    expect(() => signDigestRecoverable('secp256k1', otherSecret, sha256('z'), own)).toThrow(DOES_NOT_RECOVER);
  });
});

describe('recoveryIdOf (the check, on signatures put together here with noble)', () => {
  /** A signature (r, s) by d with nonce k over e, and R = k·G, from noble's arithmetic. */
  function signedWith(d: bigint, k: bigint, e: bigint): SignedWithNonce {
    const R = secp256k1.Point.BASE.multiply(k).toAffine();
    const r = R.x % N;
    const s = (secp256k1.Point.Fn.inv(k) * ((e + r * d) % N)) % N;
    return { r, s, k, rPointX: R.x, rPointOdd: (R.y & 1n) === 1n, d, e };
  }
  const d = big(sha256('key'));
  const e = big(sha256('digest'));
  const k = big(sha256('nonce'));

  it('gives the parity of R’s y for s, the other for n − s', () => {
    const signed = signedWith(d, k, e);
    const id = signed.rPointOdd ? 1 : 0;
    expect(recoveryIdOf('secp256k1', signed, signed.s)).toBe(id);
    expect(recoveryIdOf('secp256k1', signed, N - signed.s)).toBe(1 - id);
  });

  it('refuses an s that is not the nonce’s, a wrong secret, a wrong digest', () => {
    const signed = signedWith(d, k, e);
    expect(() => recoveryIdOf('secp256k1', signed, signed.s + 1n)).toThrow(DOES_NOT_RECOVER);
    expect(() => recoveryIdOf('secp256k1', { ...signed, d: d + 1n }, signed.s)).toThrow(DOES_NOT_RECOVER);
    expect(() => recoveryIdOf('secp256k1', { ...signed, e: e + 1n }, signed.s)).toThrow(DOES_NOT_RECOVER);
    expect(() => recoveryIdOf('secp256k1', signed, signed.s + 1n)).toThrow(SigningError);
  });

  it('refuses an R whose x is n or more: EVM v has no id 2 or 3', () => {
    const signed = signedWith(d, k, e);
    expect(() => recoveryIdOf('secp256k1', { ...signed, rPointX: signed.r + N }, signed.s)).toThrow(/recovery id 2 or 3/);
  });
});
