import { p256 } from '@noble/curves/nist.js';
import { createHash, createPublicKey, verify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signDigestP256 } from '../../../src/chip/p256-sign';

const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const sha256 = (m: string | Uint8Array) => new Uint8Array(createHash('sha256').update(m).digest());

describe('signDigestP256', () => {
  // RFC 6979 A.2.5, ECDSA with P-256 and SHA-256: the deterministic signatures of "sample" and "test".
  const key = hex('C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721');
  it.each([
    ['sample', 'EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716', 'F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8'],
    ['test', 'F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367', '019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083'],
  ])('gives RFC 6979’s signature of "%s"', (message, r, s) => {
    expect(Buffer.from(signDigestP256(key, sha256(message))).toString('hex').toUpperCase()).toBe(r + s);
  });

  it('signs as noble does, and OpenSSL verifies it (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), fc.uint8Array({ minLength: 48, maxLength: 48 }), (message, seed) => {
        // A key from 48 bytes, reduced into [1, n-1] as FIPS 186-4 B.4.1 does.
        const secret = p256.utils.randomSecretKey(seed);
        const digest = sha256(message);
        const sig = signDigestP256(secret, digest);
        expect(Buffer.from(sig).equals(Buffer.from(p256.sign(digest, secret, { prehash: false, lowS: false, format: 'compact' })))).toBe(true);
        const spki = Buffer.concat([Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex'), p256.getPublicKey(secret, false)]);
        const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
        expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a digest of another length and a key outside [1, n-1]', () => {
    expect(() => signDigestP256(key, new Uint8Array(31))).toThrow(/32-byte digest/);
    expect(() => signDigestP256(new Uint8Array(32), sha256('x'))).toThrow(/not a P-256 secret key/);
    expect(() => signDigestP256(hex('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551'), sha256('x'))).toThrow(/not a P-256 secret key/);
  });
});
