import type { EvmResult } from './api-types.js';
import { bytesOfBigint, bytesOfHex, hexOf } from './hex.js';
import { keccak256 } from './keccak.js';
import { N, recoverPublicKey } from './secp256k1.js';

/**
 * An EVM answer checked against the credential, so that a made-up signature is never taken for
 * the service's: r and s in range and low-s (EIP-2), v consistent with y_parity and chain_id
 * (EIP-155), and the key that (r, s, y_parity) recovers over the requested hash is the
 * credential's address (EIP-55).
 */

/** EIP-55: the hex address with each letter upper-cased where the nibble of keccak256(lowercase hex) is 8 or more. */
export function toChecksumAddress(address: string): string {
  const hex = address.replace(/^0x/i, '').toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(hex)) throw new RangeError(`not a 20-byte hex address: ${address.slice(0, 50)}`);
  const hash = hexOf(keccak256(new TextEncoder().encode(hex)));
  let out = '0x';
  for (let i = 0; i < 40; i += 1) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  return out;
}

/** The EIP-55 address of a public key: the last 20 bytes of keccak256(X‖Y) (yellow paper, appendix F). */
export function addressOfPublicKey(point: { x: bigint; y: bigint }): string {
  const xy = new Uint8Array(64);
  xy.set(bytesOfBigint(point.x, 32), 0);
  xy.set(bytesOfBigint(point.y, 32), 32);
  return toChecksumAddress(hexOf(keccak256(xy).subarray(12)));
}

/** v for this y_parity: 27 + y_parity, or chain_id·2 + 35 + y_parity (EIP-155); as a bigint, since chain_id·2 may pass 2^53. */
export function expectedV(yParity: 0 | 1, chainId: number | null): bigint {
  return chainId === null ? 27n + BigInt(yParity) : BigInt(chainId) * 2n + 35n + BigInt(yParity);
}

export interface EvmExpectation {
  /** The credential's address (GET /v1/credentials). */
  address: string;
  /** The 32-byte hash the client asked to sign, with the chain_id it gave; absent for a request it did not make. */
  request?: { hash: Uint8Array; chainId: number | null };
}

const SCALAR = /^0x[0-9a-f]{64}$/;

/** What does not match, in words, or null when the answer is the credential's signature. */
export function evmAnswerProblem(answer: EvmResult, expected: EvmExpectation): string | null {
  let credential: string;
  try {
    credential = toChecksumAddress(expected.address);
  } catch {
    return `the credential's address ${JSON.stringify(expected.address.slice(0, 50))} is not an address`;
  }
  if (typeof answer.r !== 'string' || typeof answer.s !== 'string' || !SCALAR.test(answer.r) || !SCALAR.test(answer.s)) return 'r and s are not 0x + 64 lowercase hex digits';
  const r = BigInt(answer.r);
  const s = BigInt(answer.s);
  if (r === 0n || r >= N || s === 0n || s >= N) return 'r or s is outside 1..n-1 (SEC 1 §4.1.4)';
  if (s > N / 2n) return 's is not low (EIP-2: s must be at most n/2)';
  if (answer.y_parity !== 0 && answer.y_parity !== 1) return `y_parity is ${JSON.stringify(answer.y_parity)}, not 0 or 1`;
  const chainId = answer.chain_id ?? null;
  if (expected.request && chainId !== expected.request.chainId) return `chain_id is ${String(chainId)}, the request asked for ${String(expected.request.chainId)}`;
  if (typeof answer.v !== 'number' || !Number.isSafeInteger(answer.v) || BigInt(answer.v) !== expectedV(answer.y_parity, chainId)) {
    return `v is ${String(answer.v)}, but y_parity ${answer.y_parity} with chain_id ${String(chainId)} makes it ${expectedV(answer.y_parity, chainId)} (EIP-155)`;
  }
  if (answer.address !== credential) return `the answer names address ${String(answer.address).slice(0, 50)}, the credential's is ${credential}`;
  if (!expected.request) return null;
  const key = recoverPublicKey(expected.request.hash, r, s, answer.y_parity);
  if (!key) return 'r, s and y_parity recover no public key over the requested hash';
  const recovered = addressOfPublicKey(key);
  return recovered === credential ? null : `the signature recovers to ${recovered} over the requested hash, not to the credential's address ${credential}`;
}

/** The 32 bytes of a tx_hash as the service takes it (64 hex digits, 0x optional, any case); null otherwise. */
export function txHashBytes(txHash: string): Uint8Array | null {
  const hex = txHash.replace(/^0x/i, '');
  return hex.length === 64 ? bytesOfHex(hex) : null;
}
