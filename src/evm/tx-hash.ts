import { InvalidInputError } from '../domain/errors';

/**
 * Request-field parsing for POST /v1/blockchain/sign. Each check names the field, what was
 * expected and what arrived (noble's `abytes` style), never echoing more than one character of
 * the caller's input: a hash field is not a place to reflect arbitrary text back.
 */

const TX_HASH_SHAPE = '64 hex digits after an optional 0x prefix';

/**
 * Largest chain id we accept (CONTRACT: 1..4503599627370476). It is (Number.MAX_SAFE_INTEGER - 39) / 2,
 * the bound wallets use (EIP-2294 discussion): with it, the EIP-155 `v = chainId * 2 + 35 + yParity`
 * is at most 9007199254740988 and stays a safe integer, so JSON numbers carry `v` exactly.
 */
export const MAX_CHAIN_ID = 4503599627370476;

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** One character, printable ASCII quoted, anything else as its code point (never more). */
function describeChar(code: number): string {
  if (code > 0x20 && code < 0x7f) return JSON.stringify(String.fromCharCode(code));
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30; // 0-9
  const lower = code | 0x20; // ASCII case fold; only applied to letters below
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10; // a-f / A-F
  return -1;
}

/**
 * CONTRACT: `tx_hash` is exactly 64 hex digits after an optional `0x`/`0X`, any case, no
 * whitespace. Returns the 32 bytes (the keccak256 the caller wants signed). `name`: the field's,
 * for another request's 32-byte field of the same shape.
 */
export function parseTxHash(value: unknown, name = 'tx_hash'): Uint8Array {
  if (typeof value !== 'string') {
    throw new InvalidInputError(`${name} must be a string of ${TX_HASH_SHAPE}, got ${describeType(value)}`);
  }
  if (value.length === 0) {
    throw new InvalidInputError(`${name} must be ${TX_HASH_SHAPE}, got an empty string`);
  }
  const start = value.length >= 2 && value[0] === '0' && (value[1] === 'x' || value[1] === 'X') ? 2 : 0;
  // Bad characters first: "0x…\n" is better explained by the newline than by its length.
  for (let i = start; i < value.length; i++) {
    if (hexValue(value.charCodeAt(i)) < 0) {
      throw new InvalidInputError(
        `${name} must be ${TX_HASH_SHAPE}, got ${describeChar(value.charCodeAt(i))} at index ${i}`,
      );
    }
  }
  const digits = value.length - start;
  if (digits !== 64) {
    throw new InvalidInputError(`${name} must be ${TX_HASH_SHAPE}, got ${digits} hex digits`);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const hi = hexValue(value.charCodeAt(start + 2 * i));
    const lo = hexValue(value.charCodeAt(start + 2 * i + 1));
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/**
 * CONTRACT: `chain_id` is an integer 1..MAX_CHAIN_ID; null or absent means none (v = 27 + y_parity).
 * Strings are refused even when numeric: the field is typed `integer` in the spec.
 */
export function parseChainId(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const expected = `chain_id must be an integer from 1 to ${MAX_CHAIN_ID} (or null)`;
  if (typeof value !== 'number') {
    throw new InvalidInputError(`${expected}, got ${describeType(value)}`);
  }
  if (!Number.isInteger(value)) {
    throw new InvalidInputError(`${expected}, got ${String(value)}`);
  }
  if (value < 1 || value > MAX_CHAIN_ID) {
    // A number is short and carries no secret, so echoing it is safe and helpful.
    throw new InvalidInputError(`${expected}, got ${String(value)}`);
  }
  return value;
}
