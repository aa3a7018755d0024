import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's published EVM vectors (test/vectors/evm/README.md says where each came from). */
export function evmVector<T>(name: string): T {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../../../test/vectors/evm', name), 'utf8')) as T;
}

export interface Eip155Example {
  privateKey: string;
  address: string;
  signingData: string;
  signingHash: string;
  v: number;
  r: string;
  s: string;
}

export interface Rfc6979Vectors {
  vectors: { privateKey: string; message: string; r: string; s: string }[];
}

export const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
export const hex32 = (v: bigint): string => `0x${v.toString(16).padStart(64, '0')}`;
