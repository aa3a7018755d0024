import { secp256k1 } from '@noble/curves/secp256k1.js';
import { SigningKey, sha256, toUtf8Bytes } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SigningError } from '../../../src/domain/errors';
import {
  computeV,
  createRecoveryChecker,
  formatEvmSignature,
  MAX_CHAIN_ID,
  normaliseLowS,
  SECP256K1_N,
  signDigestSecp256k1,
} from '../../../src/evm';
import {
  digestArb,
  hexToBytes,
  loadEvmVector,
  secretKeyArb,
  type Eip155Example,
  type Rfc6979Vectors,
} from './_vectors';

const eip155 = loadEvmVector<Eip155Example>('eip155-example.json');
const rfc6979 = loadEvmVector<Rfc6979Vectors>('rfc6979-secp256k1.json');
const HALF_N = SECP256K1_N / 2n;

function rsBytes(r: bigint, s: bigint): Uint8Array {
  return hexToBytes(r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0'));
}

describe('EIP-155 worked example', () => {
  it('signs the signing hash to the published r, s and v = 37', () => {
    const digest = hexToBytes(eip155.signingHash);
    const { r, s } = normaliseLowS(signDigestSecp256k1(hexToBytes(eip155.privateKey), digest));
    expect(r).toBe(BigInt(eip155.r));
    expect(s).toBe(BigInt(eip155.s));
    const checker = createRecoveryChecker(secp256k1.getPublicKey(hexToBytes(eip155.privateKey), false));
    const yParity = checker.recover(digest, r, s);
    expect(yParity).toBe(0);
    expect(formatEvmSignature({ r, s, yParity, chainId: eip155.tx.chainId, address: checker.address })).toEqual({
      r: '0x28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276',
      s: '0x67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83',
      v: eip155.v,
      y_parity: 0,
      address: eip155.address,
      chain_id: 1,
    });
  });
});

describe('RFC 6979 secp256k1 vectors', () => {
  it.each(rfc6979.vectors.map((v) => [v.message.slice(0, 24), v] as const))('reproduces "%s…"', (_m, vector) => {
    const digest = hexToBytes(sha256(toUtf8Bytes(vector.message)));
    const raw = signDigestSecp256k1(hexToBytes(vector.privateKey), digest);
    const { r, s } = normaliseLowS(raw);
    expect(`0x${r.toString(16).padStart(64, '0')}`).toBe(vector.r);
    expect(`0x${s.toString(16).padStart(64, '0')}`).toBe(vector.s);
    // ethers 6 SigningKey is the independent cross-check named in test/vectors/evm/README.md.
    const ethersSig = new SigningKey(vector.privateKey).sign(digest);
    expect(ethersSig.r).toBe(vector.r);
    expect(ethersSig.s).toBe(vector.s);
  });
});

describe('signDigestSecp256k1', () => {
  it('returns raw r‖s with s not normalised, like CKM_ECDSA', () => {
    // Deterministic nonces: scan digests until one yields high s (about half of them do).
    const sk = hexToBytes(eip155.privateKey);
    let sawHigh = false;
    for (let i = 0; i < 64 && !sawHigh; i++) {
      const raw = signDigestSecp256k1(sk, new Uint8Array(32).fill(i));
      expect(raw.length).toBe(64);
      sawHigh = BigInt(`0x${Buffer.from(raw.subarray(32)).toString('hex')}`) > HALF_N;
    }
    expect(sawHigh).toBe(true);
  });

  it('refuses wrong digest and key sizes and invalid keys', () => {
    const sk = hexToBytes(eip155.privateKey);
    expect(() => signDigestSecp256k1(sk, new Uint8Array(31))).toThrow('digest must be 32 bytes, got 31 bytes');
    expect(() => signDigestSecp256k1(new Uint8Array(31), new Uint8Array(32))).toThrow(
      'secp256k1 secret key must be 32 bytes',
    );
    expect(() => signDigestSecp256k1(new Uint8Array(32), new Uint8Array(32))).toThrow(
      'secp256k1 signing failed: invalid secret key',
    );
  });
});

describe('normaliseLowS (EIP-2)', () => {
  it('leaves s <= n/2 alone and maps s > n/2 to n - s', () => {
    expect(normaliseLowS(rsBytes(5n, HALF_N))).toEqual({ r: 5n, s: HALF_N, flipped: false });
    expect(normaliseLowS(rsBytes(5n, HALF_N + 1n))).toEqual({ r: 5n, s: HALF_N, flipped: true });
    expect(normaliseLowS(rsBytes(7n, SECP256K1_N - 1n))).toEqual({ r: 7n, s: 1n, flipped: true });
  });

  it('refuses r or s of 0 or >= n and wrong lengths', () => {
    expect(() => normaliseLowS(rsBytes(0n, 1n))).toThrow('secp256k1 signature has r or s outside 1..n-1');
    expect(() => normaliseLowS(rsBytes(1n, SECP256K1_N))).toThrow(SigningError);
    expect(() => normaliseLowS(new Uint8Array(65))).toThrow('secp256k1 signature must be 64 bytes r‖s, got 65 bytes');
  });

  it('always yields low s that still verifies (property)', () => {
    fc.assert(
      fc.property(secretKeyArb, digestArb, (sk, digest) => {
        const raw = signDigestSecp256k1(sk, digest);
        const { r, s, flipped } = normaliseLowS(raw);
        expect(s <= HALF_N).toBe(true);
        expect(flipped).toBe(BigInt(`0x${Buffer.from(raw.subarray(32)).toString('hex')}`) > HALF_N);
        const pub = secp256k1.getPublicKey(sk, false);
        expect(secp256k1.verify(rsBytes(r, s), digest, pub, { prehash: false, lowS: true })).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

describe('computeV', () => {
  it.each([
    [0, null, 27],
    [1, null, 28],
    [0, 1, 37],
    [1, 1, 38],
    [0, 137, 309],
    [1, 11155111, 22310258],
    [1, MAX_CHAIN_ID, 9007199254740988],
  ] as const)('y_parity %d, chain %s -> v %d', (yParity, chainId, v) => {
    expect(computeV(yParity, chainId)).toBe(v);
    expect(Number.isSafeInteger(computeV(yParity, chainId))).toBe(true);
  });

  it('follows chainId * 2 + 35 + yParity for every valid chain id (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: MAX_CHAIN_ID }), (y, id) => {
        const v = computeV(y as 0 | 1, id);
        expect(BigInt(v)).toBe(BigInt(id) * 2n + 35n + BigInt(y));
        expect(Number.isSafeInteger(v)).toBe(true);
      }),
    );
  });

  it('refuses out-of-range input', () => {
    expect(() => computeV(2 as 0, null)).toThrow('y_parity must be 0 or 1, got 2');
    expect(() => computeV(0, 0)).toThrow(`chain_id must be an integer from 1 to ${MAX_CHAIN_ID}, got 0`);
    expect(() => computeV(0, MAX_CHAIN_ID + 1)).toThrow(SigningError);
  });
});

describe('formatEvmSignature', () => {
  it('pads r and s to 64 lowercase hex digits and keeps a null chain id', () => {
    expect(formatEvmSignature({ r: 0xabn, s: 1n, yParity: 1, chainId: null, address: '0xAb' })).toEqual({
      r: `0x${'0'.repeat(62)}ab`,
      s: `0x${'0'.repeat(63)}1`,
      v: 28,
      y_parity: 1,
      address: '0xAb',
      chain_id: null,
    });
  });

  it('refuses a high-s signature', () => {
    expect(() => formatEvmSignature({ r: 1n, s: HALF_N + 1n, yParity: 0, chainId: 1, address: '0x' })).toThrow(
      'refusing to format a high-s signature (EIP-2)',
    );
  });
});
