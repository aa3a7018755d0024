import { secp256k1 } from '@noble/curves/secp256k1.js';
import { recoverAddress as ethersRecoverAddress, Signature } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SigningError } from '../../../src/domain/errors';
import {
  addressFromPublicKey,
  createRecoveryChecker,
  normaliseLowS,
  recoverAddress,
  SECP256K1_N,
  signDigestSecp256k1,
} from '../../../src/evm';
import { digestArb, hexToBytes, loadEvmVector, secretKeyArb, type Eip155Example } from './_vectors';

const eip155 = loadEvmVector<Eip155Example>('eip155-example.json');
const hex32 = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

describe('createRecoveryChecker', () => {
  const sk = hexToBytes(eip155.privateKey);
  const pub = secp256k1.getPublicKey(sk, false);
  const checker = createRecoveryChecker(pub);
  const digest = hexToBytes(eip155.signingHash);
  const { r, s } = normaliseLowS(signDigestSecp256k1(sk, digest));

  it('knows the credential address', () => {
    expect(checker.address).toBe(eip155.address);
  });

  it('finds the recovery id of the EIP-155 example and agrees with plain recovery', () => {
    expect(checker.recover(digest, r, s)).toBe(0);
    expect(recoverAddress(digest, r, s, 0)).toBe(eip155.address);
    expect(recoverAddress(digest, r, s, 1)).not.toBe(eip155.address);
  });

  it('flips the recovery id with s -> n - s (the mirrored nonce point)', () => {
    expect(checker.recover(digest, r, SECP256K1_N - s)).toBe(1);
  });

  it('refuses a signature over another digest', () => {
    const other = digest.slice();
    other[0]! ^= 1;
    expect(() => checker.recover(other, r, s)).toThrow(new SigningError('signature does not recover to the credential address'));
  });

  it('refuses a signature made by another key', () => {
    const otherKey = hexToBytes(`0x${'47'.repeat(32)}`);
    const sig = normaliseLowS(signDigestSecp256k1(otherKey, digest));
    expect(() => checker.recover(digest, sig.r, sig.s)).toThrow('signature does not recover to the credential address');
  });

  it('refuses out-of-range scalars and bad digests', () => {
    expect(() => checker.recover(digest, 0n, s)).toThrow('r must be in 1..n-1 (SEC 1 §4.1.4)');
    expect(() => checker.recover(digest, r, SECP256K1_N)).toThrow('s must be in 1..n-1 (SEC 1 §4.1.4)');
    expect(() => checker.recover(digest.subarray(1), r, s)).toThrow('digest must be 32 bytes, got 31 bytes');
  });

  it('refuses keys that are not uncompressed curve points', () => {
    expect(() => createRecoveryChecker(secp256k1.getPublicKey(sk, true))).toThrow(
      'secp256k1 public key must be 65 bytes 0x04‖X‖Y, got 33 bytes',
    );
    const offCurve = pub.slice();
    offCurve[64]! ^= 1;
    expect(() => createRecoveryChecker(offCurve)).toThrow('secp256k1 public key is not a point on the curve');
  });

  it('handles the all-zero digest (u1 = 0)', () => {
    const zero = new Uint8Array(32);
    const sig = normaliseLowS(signDigestSecp256k1(sk, zero));
    const y = checker.recover(zero, sig.r, sig.s);
    expect(recoverAddress(zero, sig.r, sig.s, y)).toBe(eip155.address);
  });

  it('agrees with ethers recoverAddress for random keys and digests (property)', () => {
    fc.assert(
      fc.property(secretKeyArb, digestArb, (key, d) => {
        const pubKey = secp256k1.getPublicKey(key, false);
        const check = createRecoveryChecker(pubKey);
        const sig = normaliseLowS(signDigestSecp256k1(key, d));
        const yParity = check.recover(d, sig.r, sig.s);
        const address = addressFromPublicKey(pubKey);
        expect(check.address).toBe(address);
        const ethersSig = Signature.from({ r: hex32(sig.r), s: hex32(sig.s), yParity });
        expect(ethersRecoverAddress(d, ethersSig)).toBe(address);
        expect(recoverAddress(d, sig.r, sig.s, yParity)).toBe(address);
        // The other parity recovers some other key, never ours.
        const wrong = Signature.from({ r: hex32(sig.r), s: hex32(sig.s), yParity: (1 - yParity) as 0 | 1 });
        expect(ethersRecoverAddress(d, wrong)).not.toBe(address);
      }),
      { numRuns: 8 },
    );
  });

  it('agrees with ethers for many digests under one precomputed key (property)', () => {
    fc.assert(
      fc.property(digestArb, (d) => {
        const sig = normaliseLowS(signDigestSecp256k1(sk, d));
        const yParity = checker.recover(d, sig.r, sig.s);
        const ethersSig = Signature.from({ r: hex32(sig.r), s: hex32(sig.s), yParity });
        expect(ethersRecoverAddress(d, ethersSig)).toBe(eip155.address);
      }),
      { numRuns: 60 },
    );
  });
});

describe('recoverAddress', () => {
  it('refuses a y_parity other than 0 or 1', () => {
    expect(() => recoverAddress(new Uint8Array(32), 1n, 1n, 2 as 0)).toThrow('y_parity must be 0 or 1, got 2');
  });
});

describe('createRecoveryChecker: tables widened for a busy key only', () => {
  const sk = hexToBytes(eip155.privateKey);
  const pub = secp256k1.getPublicKey(sk, false);
  const digest = hexToBytes(eip155.signingHash);
  const { r, s } = normaliseLowS(signDigestSecp256k1(sk, digest));

  it('starts narrow, widens after 64 checks within a second, and answers the same before and after', () => {
    let t = 0;
    const checker = createRecoveryChecker(pub, () => t);
    expect(checker.tableWidth).toBe(6);
    for (let i = 0; i < 63; i += 1) {
      t += 10;
      expect(checker.recover(digest, r, s)).toBe(0);
    }
    expect(checker.tableWidth).toBe(6);
    t += 10;
    expect(checker.recover(digest, r, s)).toBe(0);
    expect(checker.tableWidth).toBe(8);
    expect(checker.recover(digest, r, SECP256K1_N - s)).toBe(1);
    expect(() => checker.recover(digest, r, s + 1n)).toThrow(SigningError);
  });

  it('stays narrow for a key checked now and then, however many times', () => {
    let t = 0;
    const checker = createRecoveryChecker(pub, () => t);
    for (let i = 0; i < 300; i += 1) {
      t += 20; // 50 a second: under the 64 that make a key busy
      checker.recover(digest, r, s);
    }
    expect(checker.tableWidth).toBe(6);
  });

  it('agrees with plain recovery on random keys and digests at both widths', () => {
    fc.assert(
      fc.property(secretKeyArb, digestArb, (key, d) => {
        const checker = createRecoveryChecker(secp256k1.getPublicKey(key, false), () => 0);
        const sig = normaliseLowS(signDigestSecp256k1(key, d));
        const narrow = checker.recover(d, sig.r, sig.s);
        for (let i = 0; i < 64; i += 1) checker.recover(d, sig.r, sig.s);
        expect(checker.tableWidth).toBe(8);
        expect(checker.recover(d, sig.r, sig.s)).toBe(narrow);
        expect(recoverAddress(d, sig.r, sig.s, narrow)).toBe(checker.address);
      }),
      { numRuns: 8 },
    );
  });
});
