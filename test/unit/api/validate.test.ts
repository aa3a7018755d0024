import { describe, expect, it } from 'vitest';
import { hostName } from '../../../src/api/middleware/host-check';
import { assertKnownFields, optionalString, parseLimit, parseWait } from '../../../src/api/validate';

describe('parseLimit (CONTRACT: digits only, 0 is 422, above 1000 clamps)', () => {
  it.each([
    [undefined, 50],
    [['1'], 1],
    [['0050'], 50],
    [['1000'], 1000],
    [['1001'], 1000],
    [['99999999999999999999999'], 1000],
  ])('%j -> %d', (values, expected) => expect(parseLimit(values as string[] | undefined, 50)).toBe(expected));

  it.each([['0'], ['000'], ['-1'], ['+5'], ['1e3'], [''], ['abc'], [' 5'], ['5', '6']])('%j is refused', (...values) => {
    expect(() => parseLimit(values, 50)).toThrow(/limit/);
  });
});

describe('field checks', () => {
  it('names unknown fields and wrong types', () => {
    expect(() => assertKnownFields({ a: 1, tx: 2 }, ['a'])).toThrow('unknown field: tx; allowed: a');
    expect(() => optionalString({ reason: 5 }, 'reason')).toThrow('reason must be a string, got number');
    expect(optionalString({ reason: null }, 'reason')).toBeNull();
  });
});

describe('hostName', () => {
  it.each([
    ['127.0.0.1:8300', '127.0.0.1'],
    ['LocalHost:1', 'localhost'],
    ['[::1]:8300', '[::1]'],
    ['[::1]', '[::1]'],
    ['evil.example', 'evil.example'],
  ])('%s -> %s', (header, name) => expect(hostName(header)).toBe(name));
});

describe('parseWait (long poll on GET /v1/results/{id})', () => {
  it.each([
    [undefined, 0],
    [['0'], 0],
    [['5'], 5],
    [['030'], 30],
    [['31'], 30],
    [['99999999999'], 30],
  ])('%j -> %d', (values, expected) => expect(parseWait(values as string[] | undefined)).toBe(expected));

  it.each([['-1'], ['1.5'], [''], ['5s'], ['1', '2']])('%j is refused', (...values) => {
    expect(() => parseWait(values)).toThrow(/wait/);
  });
});
