import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Loads a published vector file from test/vectors/evm (see its README.md for provenance). */
export function loadEvmVector<T>(name: string): T {
  const path = join(import.meta.dirname, '../../vectors/evm', name);
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export interface Eip155Example {
  privateKey: string;
  address: string;
  tx: { nonce: number; gasPrice: string; gasLimit: number; to: string; value: string; data: string; chainId: number };
  signingData: string;
  signingHash: string;
  v: number;
  r: string;
  s: string;
  signedTx: string;
}

export interface Rfc6979Vectors {
  vectors: { privateKey: string; message: string; r: string; s: string }[];
}

export function hexToBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
}

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A valid secp256k1 secret key (1..n-1) as 32 big-endian bytes, for fast-check properties. */
export const secretKeyArb = fc
  .bigInt({ min: 1n, max: N - 1n })
  .map((k) => hexToBytes(k.toString(16).padStart(64, '0')));

/** A 32-byte digest, biased toward edge values (all zero, all 0xff) by fast-check. */
export const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
