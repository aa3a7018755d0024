import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { computeAddress, recoverAddress, Signature } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressOfPublicKey } from '../src/evm-answer';
import { hexOf } from '../src/hex';
import { invert, N, P, recoverPublicKey } from '../src/secp256k1';
import { bytes, evmVector, hex32, type Eip155Example, type Rfc6979Vectors } from './_evm-vectors';

const eip155 = evmVector<Eip155Example>('eip155-example.json');
const rfc6979 = evmVector<Rfc6979Vectors>('rfc6979-secp256k1.json');

/** The uncompressed public key of a secret key, by @noble/curves, as our (x, y). */
function publicKeyOf(secret: Uint8Array): { x: bigint; y: bigint } {
  const pub = secp256k1.getPublicKey(secret, false);
  return { x: BigInt(`0x${hexOf(pub.subarray(1, 33))}`), y: BigInt(`0x${hexOf(pub.subarray(33))}`) };
}

describe('secp256k1 public-key recovery (the client\'s own)', () => {
  it('recovers the EIP-155 example\'s address from its signing hash, r, s and v = 37 (y_parity 0)', () => {
    const key = recoverPublicKey(bytes(eip155.signingHash), BigInt(eip155.r), BigInt(eip155.s), ((eip155.v - 35) % 2) as 0 | 1);
    expect(addressOfPublicKey(key!)).toBe(eip155.address);
    // The other parity is another key.
    expect(addressOfPublicKey(recoverPublicKey(bytes(eip155.signingHash), BigInt(eip155.r), BigInt(eip155.s), 1)!)).not.toBe(eip155.address);
  });

  it('recovers the RFC 6979 vectors\' keys, under exactly one parity', () => {
    for (const v of rfc6979.vectors) {
      const hash = sha256(new TextEncoder().encode(v.message));
      const want = publicKeyOf(bytes(v.privateKey));
      const found = ([0, 1] as const).filter((y) => {
        const got = recoverPublicKey(hash, BigInt(v.r), BigInt(v.s), y);
        return got !== null && got.x === want.x && got.y === want.y;
      });
      expect(found, v.message).toHaveLength(1);
      expect(addressOfPublicKey(want)).toBe(computeAddress(v.privateKey));
    }
  });

  it('agrees with @noble/curves and ethers for random keys and hashes (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: N - 1n }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (k, hash) => {
        const secret = bytes(k.toString(16).padStart(64, '0'));
        const sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, secret, { prehash: false, format: 'recovered' }), 'recovered');
        const got = recoverPublicKey(hash, sig.r, sig.s, sig.recovery as 0 | 1);
        expect(got).toEqual(publicKeyOf(secret));
        expect(addressOfPublicKey(got!)).toBe(recoverAddress(hash, Signature.from({ r: hex32(sig.r), s: hex32(sig.s), yParity: sig.recovery as 0 | 1 })));
      }),
      { numRuns: 40 },
    );
  });

  it('recovers nothing from r or s out of range, or an r that is no point\'s x', () => {
    const hash = bytes(eip155.signingHash);
    for (const [r, s] of [[0n, 1n], [1n, 0n], [N, 1n], [1n, N]]) expect(recoverPublicKey(hash, r!, s!, 0)).toBeNull();
    // x = 5: 5³ + 7 = 132 is not a square mod p.
    expect(recoverPublicKey(hash, 5n, 1n, 0)).toBeNull();
    expect(() => recoverPublicKey(new Uint8Array(31), 1n, 1n, 0)).toThrow('hash must be 32 bytes, got 31');
  });

  it('invert: a · a⁻¹ = 1 mod p and mod n', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: N - 1n }), (a) => {
        expect((a * invert(a, N)) % N).toBe(1n);
        expect((a * invert(a, P)) % P).toBe(1n);
      }),
    );
  });
});
