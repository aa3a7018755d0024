import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors';
import { MAX_CHAIN_ID, parseChainId, parseTxHash } from '../../../src/evm';

const HASH = 'daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';
const SHAPE = 'tx_hash must be 64 hex digits after an optional 0x prefix';

function errorOf(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return err as InvalidInputError;
  }
  throw new Error('expected a throw');
}

describe('parseTxHash', () => {
  const bytes = Uint8Array.from(Buffer.from(HASH, 'hex'));

  it.each([
    ['bare lowercase', HASH],
    ['0x prefix', `0x${HASH}`],
    ['0X prefix', `0X${HASH}`],
    ['upper case digits', `0x${HASH.toUpperCase()}`],
    ['mixed case', `0X${HASH.slice(0, 32).toUpperCase()}${HASH.slice(32)}`],
  ])('accepts %s', (_name, input) => {
    expect(parseTxHash(input)).toEqual(bytes);
  });

  it('decodes every nibble value exactly', () => {
    const all = '00112233445566778899aabbccddeeffAABBCCDDEEFF0123456789abcdef0f1e';
    expect(Buffer.from(parseTxHash(all)).toString('hex')).toBe(all.toLowerCase());
  });

  it.each([
    ['63 digits', `0x${HASH.slice(1)}`, `${SHAPE}, got 63 hex digits`],
    ['65 digits', `0x${HASH}0`, `${SHAPE}, got 65 hex digits`],
    ['66 digits without prefix', `${HASH}00`, `${SHAPE}, got 66 hex digits`],
    ['prefix only', '0x', `${SHAPE}, got 0 hex digits`],
    ['empty string', '', `${SHAPE}, got an empty string`],
    ['leading space', ` ${HASH}`, `${SHAPE}, got U+0020 at index 0`],
    ['trailing newline', `0x${HASH}\n`, `${SHAPE}, got U+000A at index 66`],
    ['inner tab', `0x${HASH.slice(0, 10)}\t${HASH.slice(11)}`, `${SHAPE}, got U+0009 at index 12`],
    ['non-hex letter', `0x${HASH.slice(0, 5)}g${HASH.slice(6)}`, `${SHAPE}, got "g" at index 7`],
    ['double prefix', `0x0x${HASH.slice(2)}`, `${SHAPE}, got "x" at index 3`],
    ['x without 0', `x${HASH}`, `${SHAPE}, got "x" at index 0`],
    ['non-ASCII digit', `${HASH.slice(0, 63)}\u0663`, `${SHAPE}, got U+0663 at index 63`],
    ['minus sign', `-${HASH}`, `${SHAPE}, got "-" at index 0`],
  ])('rejects %s', (_name, input, message) => {
    expect(errorOf(() => parseTxHash(input)).message).toBe(message);
  });

  it.each([
    ['number', 12345, 'number'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['array of bytes', [1, 2, 3], 'an array'],
    ['object', { hash: HASH }, 'an object'],
    ['Uint8Array', new Uint8Array(32), 'an object'],
    ['bigint', 10n, 'bigint'],
    ['boolean', true, 'boolean'],
  ])('rejects a %s', (_name, input, got) => {
    const err = errorOf(() => parseTxHash(input));
    expect(err.message).toBe(`tx_hash must be a string of 64 hex digits after an optional 0x prefix, got ${got}`);
    expect(err.kind).toBe('invalid');
  });

  it('never echoes more than one character of a long bad input', () => {
    const secretish = `0x${'a'.repeat(60)}ZZZZ-this-is-not-a-hash-but-a-long-text`;
    const message = errorOf(() => parseTxHash(secretish)).message;
    expect(message).toBe(`${SHAPE}, got "Z" at index 62`);
    expect(message).not.toContain('this-is-not');
  });
});

describe('parseChainId', () => {
  const RANGE = `chain_id must be an integer from 1 to ${MAX_CHAIN_ID} (or null)`;

  it('treats null and undefined as no chain id', () => {
    expect(parseChainId(null)).toBeNull();
    expect(parseChainId(undefined)).toBeNull();
  });

  it.each([1, 5, 137, 11155111, 2 ** 32, MAX_CHAIN_ID])('accepts %d', (id) => {
    expect(parseChainId(id)).toBe(id);
  });

  it('fixes the maximum at (MAX_SAFE_INTEGER - 39) / 2', () => {
    expect(MAX_CHAIN_ID).toBe(4503599627370476);
    expect(MAX_CHAIN_ID).toBe((Number.MAX_SAFE_INTEGER - 39) / 2);
  });

  it.each([
    [0, '0'],
    [-1, '-1'],
    [MAX_CHAIN_ID + 1, '4503599627370477'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    [1.5, '1.5'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [1e300, '1e+300'],
  ])('rejects the number %d', (input, got) => {
    expect(errorOf(() => parseChainId(input)).message).toBe(`${RANGE}, got ${got}`);
  });

  it.each([
    ['numeric string', '1', 'string'],
    ['hex string', '0x1', 'string'],
    ['bigint', 1n, 'bigint'],
    ['boolean', true, 'boolean'],
    ['array', [1], 'an array'],
    ['object', { id: 1 }, 'an object'],
  ])('rejects a %s', (_name, input, got) => {
    expect(errorOf(() => parseChainId(input)).message).toBe(`${RANGE}, got ${got}`);
  });
});
