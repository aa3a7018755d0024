import { secp256k1 } from '@noble/curves/secp256k1.js';
import { parseEther, parseUnits, Transaction } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  createRecoveryChecker,
  formatEvmSignature,
  normaliseLowS,
  parseChainId,
  parseTxHash,
  signDigestSecp256k1,
} from '../../../src/evm';

/**
 * End to end through ethers 6: the caller builds an unsigned transaction, sends its unsignedHash
 * as tx_hash, and assembles the signed transaction from our r, s, v / y_parity. ethers must parse
 * it back with `from` equal to the credential address.
 */
const secretKey = Uint8Array.from(Buffer.from('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318', 'hex'));
const checker = createRecoveryChecker(secp256k1.getPublicKey(secretKey, false));

function signAsService(txHash: string, chainId: unknown) {
  const digest = parseTxHash(txHash);
  const chain = parseChainId(chainId);
  const { r, s } = normaliseLowS(signDigestSecp256k1(secretKey, digest));
  const yParity = checker.recover(digest, r, s);
  return formatEvmSignature({ r, s, yParity, chainId: chain, address: checker.address });
}

describe('signatures ethers can put into transactions', () => {
  it('legacy EIP-155 transaction: v = chainId * 2 + 35 + y_parity', () => {
    const unsigned = Transaction.from({
      type: 0,
      chainId: 11155111,
      nonce: 7,
      gasPrice: parseUnits('3', 'gwei'),
      gasLimit: 21000,
      to: '0x3535353535353535353535353535353535353535',
      value: parseEther('0.25'),
      data: '0x',
    });
    const result = signAsService(unsigned.unsignedHash, 11155111);
    expect(result.v).toBe(11155111 * 2 + 35 + result.y_parity);
    expect(result.chain_id).toBe(11155111);

    const signed = Transaction.from({ ...unsigned.toJSON(), signature: { r: result.r, s: result.s, v: result.v } });
    const parsed = Transaction.from(signed.serialized);
    expect(parsed.type).toBe(0);
    expect(parsed.chainId).toBe(11155111n);
    expect(parsed.from).toBe(checker.address);
    expect(parsed.signature?.networkV).toBe(BigInt(result.v));
    expect(parsed.signature?.r).toBe(result.r);
    expect(parsed.signature?.s).toBe(result.s);
    expect(parsed.unsignedHash).toBe(unsigned.unsignedHash);
  });

  it('EIP-1559 transaction: y_parity carries the recovery id', () => {
    const unsigned = Transaction.from({
      type: 2,
      chainId: 1,
      nonce: 42,
      maxPriorityFeePerGas: parseUnits('1.5', 'gwei'),
      maxFeePerGas: parseUnits('40', 'gwei'),
      gasLimit: 65000,
      to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      value: 0,
      data: '0xa9059cbb',
      accessList: [],
    });
    // Upper-case 0X and digits exercise the CONTRACT's "any case" tx_hash rule on a real hash.
    const result = signAsService(`0X${unsigned.unsignedHash.slice(2).toUpperCase()}`, 1);
    const signed = Transaction.from({
      ...unsigned.toJSON(),
      signature: { r: result.r, s: result.s, yParity: result.y_parity },
    });
    const parsed = Transaction.from(signed.serialized);
    expect(parsed.type).toBe(2);
    expect(parsed.from).toBe(checker.address);
    expect(parsed.signature?.yParity).toBe(result.y_parity);
    expect(parsed.hash).toBe(signed.hash);
  });

  it('pre-EIP-155 legacy transaction without chain id: v = 27 + y_parity', () => {
    const unsigned = Transaction.from({
      type: 0,
      nonce: 0,
      gasPrice: parseUnits('20', 'gwei'),
      gasLimit: 21000,
      to: '0x3535353535353535353535353535353535353535',
      value: 1,
    });
    const result = signAsService(unsigned.unsignedHash.slice(2), null);
    expect(result.chain_id).toBeNull();
    expect(result.v).toBe(27 + result.y_parity);
    const signed = Transaction.from({ ...unsigned.toJSON(), signature: { r: result.r, s: result.s, v: result.v } });
    const parsed = Transaction.from(signed.serialized);
    expect(parsed.chainId).toBe(0n);
    expect(parsed.from).toBe(checker.address);
  });
});
