import { getAddress, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { EvmResult } from '../src/api-types';
import { evmAnswerProblem, expectedV, toChecksumAddress, txHashBytes } from '../src/evm-answer';
import { N } from '../src/secp256k1';
import { bytes, evmVector, hex32, type Eip155Example } from './_evm-vectors';

const eip155 = evmVector<Eip155Example>('eip155-example.json');
const eip55 = evmVector<{ addresses: string[] }>('eip55-checksum.json');
const hash = bytes(eip155.signingHash);

/** The EIP-155 example as the service answers it: r, s as 0x + 64 hex, v 37, y_parity 0, chain 1. */
const good: EvmResult = { request_id: 'req_1', status: 'DONE', r: hex32(BigInt(eip155.r)), s: hex32(BigInt(eip155.s)), v: 37, y_parity: 0, address: eip155.address, chain_id: 1 };
const asked = { address: eip155.address, request: { hash, chainId: 1 } };

describe('an EVM answer checked against the credential', () => {
  it('EIP-55: the published test cases, and ethers agrees', () => {
    for (const a of eip55.addresses) {
      expect(toChecksumAddress(a.toLowerCase())).toBe(a);
      expect(toChecksumAddress(a)).toBe(getAddress(a));
    }
  });

  it('v per EIP-155, past 2^53 for the largest chain_id the service takes', () => {
    expect([expectedV(0, null), expectedV(1, null), expectedV(0, 1), expectedV(1, 1)]).toEqual([27n, 28n, 37n, 38n]);
    expect(expectedV(1, 4503599627370476)).toBe(9007199254740988n);
  });

  it('takes the service\'s answer: it recovers to the credential over the requested hash', () => {
    expect(evmAnswerProblem(good, asked)).toBeNull();
    // The credential's address in any case is the same address.
    expect(evmAnswerProblem(good, { ...asked, address: eip155.address.toLowerCase() })).toBeNull();
  });

  it('refuses a made-up signature, or one by another key, whatever address it names', async () => {
    const other = Wallet.createRandom();
    const sig = other.signingKey.sign(eip155.signingHash);
    const byOther = { ...good, r: sig.r, s: sig.s, y_parity: sig.yParity, v: 37 + sig.yParity };
    expect(evmAnswerProblem(byOther, asked)).toMatch(new RegExp(`^the signature recovers to 0x[0-9a-fA-F]{40} over the requested hash, not to the credential's address ${eip155.address}$`));
    expect(evmAnswerProblem({ ...byOther, address: other.address }, asked)).toBe(`the answer names address ${other.address}, the credential's is ${eip155.address}`);
    // The right signature over another hash.
    expect(evmAnswerProblem(good, { ...asked, request: { hash: bytes('11'.repeat(32)), chainId: 1 } })).toMatch(/^the signature recovers to 0x[0-9a-fA-F]{40} over the requested hash/);
  });

  it('refuses what no service answer is: high s, v against y_parity or chain_id, bad shapes', () => {
    const high = hex32(N - BigInt(eip155.s));
    expect(evmAnswerProblem({ ...good, s: high, y_parity: 1, v: 38 }, asked)).toBe('s is not low (EIP-2: s must be at most n/2)');
    expect(evmAnswerProblem({ ...good, v: 38 }, asked)).toBe('v is 38, but y_parity 0 with chain_id 1 makes it 37 (EIP-155)');
    expect(evmAnswerProblem({ ...good, v: 27, chain_id: null }, asked)).toBe('chain_id is null, the request asked for 1');
    expect(evmAnswerProblem({ ...good, r: good.r.toUpperCase().replace('0X', '0x') }, asked)).toBe('r and s are not 0x + 64 lowercase hex digits');
    expect(evmAnswerProblem({ ...good, r: hex32(N) }, asked)).toBe('r or s is outside 1..n-1 (SEC 1 §4.1.4)');
    expect(evmAnswerProblem({ ...good, y_parity: 2 as 0 }, asked)).toBe('y_parity is 2, not 0 or 1');
    expect(evmAnswerProblem(good, { ...asked, address: 'nope' })).toBe('the credential\'s address "nope" is not an address');
  });

  it('without the request (a request id from elsewhere): the shape and the address only', () => {
    expect(evmAnswerProblem(good, { address: eip155.address })).toBeNull();
    expect(evmAnswerProblem({ ...good, v: 28 }, { address: eip155.address })).toMatch(/^v is 28/);
  });

  it('tx_hash as the service takes it', () => {
    expect(txHashBytes(eip155.signingHash)).toEqual(hash);
    expect(txHashBytes(eip155.signingHash.slice(2).toUpperCase())).toEqual(hash);
    expect(txHashBytes('0x12')).toBeNull();
  });
});
