import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256 as ethersKeccak } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hexOf } from '../src/hex';
import { keccak256 } from '../src/keccak';
import { bytes, evmVector, type Eip155Example } from './_evm-vectors';

const eip155 = evmVector<Eip155Example>('eip155-example.json');

describe('keccak256 (the client\'s own)', () => {
  it('gives the EIP-155 example\'s signing hash of its signing data', () => {
    expect(`0x${hexOf(keccak256(bytes(eip155.signingData)))}`).toBe(eip155.signingHash);
  });

  it('is Keccak, not FIPS 202 SHA3-256: the empty input', () => {
    // Ethereum's hash of empty code (Keccak padding 0x01); SHA3-256('') is a7ffc6f8….
    expect(hexOf(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });

  it('agrees with @noble/hashes and ethers around the 136-byte block edges (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 130, max: 410 }).map((n) => new Uint8Array(n).fill(0xa5))), (data) => {
        const ours = hexOf(keccak256(data));
        expect(ours).toBe(hexOf(keccak_256(data)));
        expect(`0x${ours}`).toBe(ethersKeccak(data));
      }),
      { numRuns: 300 },
    );
  });
});
