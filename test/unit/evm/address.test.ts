import { secp256k1 } from '@noble/curves/secp256k1.js';
import { computeAddress, getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors';
import { addressFromPublicKey, toChecksumAddress } from '../../../src/evm';
import fc from 'fast-check';
import { hexToBytes, loadEvmVector, secretKeyArb, type Eip155Example } from './_vectors';

const eip55 = loadEvmVector<{ addresses: string[] }>('eip55-checksum.json');
const eip155 = loadEvmVector<Eip155Example>('eip155-example.json');

describe('toChecksumAddress (EIP-55)', () => {
  it.each(eip55.addresses)('reproduces %s from lower and upper case', (address) => {
    const digits = address.slice(2);
    expect(toChecksumAddress(digits.toLowerCase())).toBe(address);
    expect(toChecksumAddress(`0x${digits.toUpperCase()}`)).toBe(address);
    expect(toChecksumAddress(`0X${digits.toLowerCase()}`)).toBe(address);
  });

  it('agrees with ethers getAddress on random addresses', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const hex = Buffer.from(bytes).toString('hex');
        expect(toChecksumAddress(hex)).toBe(getAddress(`0x${hex}`));
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['39 digits', '0x' + 'a'.repeat(39), 41],
    ['41 digits', 'a'.repeat(41), 41],
    ['non-hex', '0x' + 'g'.repeat(40), 42],
  ])('rejects %s', (_name, input, length) => {
    expect(() => toChecksumAddress(input)).toThrow(InvalidInputError);
    expect(() => toChecksumAddress(input)).toThrow(
      `address must be 40 hex digits after an optional 0x prefix, got ${length} characters`,
    );
  });
});

describe('addressFromPublicKey', () => {
  it('gives the EIP-155 example key its well-known address', () => {
    const pub = secp256k1.getPublicKey(hexToBytes(eip155.privateKey), false);
    expect(addressFromPublicKey(pub)).toBe(eip155.address);
  });

  it('agrees with ethers computeAddress for random keys', () => {
    fc.assert(
      fc.property(secretKeyArb, (sk) => {
        const pub = secp256k1.getPublicKey(sk, false);
        expect(addressFromPublicKey(pub)).toBe(computeAddress(`0x${Buffer.from(pub).toString('hex')}`));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses compressed or truncated keys', () => {
    const pub = secp256k1.getPublicKey(hexToBytes(eip155.privateKey), true);
    expect(() => addressFromPublicKey(pub)).toThrow('public key must be 65 bytes (0x04‖X‖Y, SEC1 uncompressed), got 33 bytes');
    const bad = new Uint8Array(65);
    bad[0] = 0x02;
    expect(() => addressFromPublicKey(bad)).toThrow('got 65 bytes');
  });
});
