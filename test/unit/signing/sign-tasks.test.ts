import { Signature, SigningKey, recoverAddress, computeAddress } from 'ethers';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { SECP256K1_N } from '../../../src/evm';
import { runSignTask } from '../../../src/signing/sign-tasks';

const hex = (b: bigint) => '0x' + b.toString(16).padStart(64, '0');

describe('secp256k1-sign-recover (the software chip in one worker task)', () => {
  const secretKey = new Uint8Array(32).fill(0x46); // EIP-155's example key 0x4646…46
  const publicKey = secp256k1.getPublicKey(secretKey, false);

  it('gives a low-s signature whose recovery id recovers the key, for many digests', () => {
    const address = computeAddress(new SigningKey(secretKey).publicKey);
    for (let i = 0; i < 50; i += 1) {
      const digest = new Uint8Array(32).fill(i + 1);
      const out = runSignTask({ op: 'secp256k1-sign-recover', secretKey, publicKey, digest }) as { r: bigint; s: bigint; yParity: 0 | 1 };
      expect(out.s <= SECP256K1_N / 2n).toBe(true);
      expect(recoverAddress(digest, Signature.from({ r: hex(out.r), s: hex(out.s), yParity: out.yParity }))).toBe(address);
    }
  });

  it('refuses to answer when the signature does not recover to the given public key', () => {
    const other = secp256k1.getPublicKey(new Uint8Array(32).fill(0x47), false);
    expect(() => runSignTask({ op: 'secp256k1-sign-recover', secretKey, publicKey: other, digest: new Uint8Array(32).fill(9) })).toThrow(
      'signature does not recover to the credential address',
    );
  });
});
