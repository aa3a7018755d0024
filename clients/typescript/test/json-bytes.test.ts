import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonWithBase64, parseJsonBytes } from '../src/json-bytes';

const MiB = 1024 * 1024;
const utf8 = (x: string | Uint8Array) => (typeof x === 'string' ? Buffer.from(x) : Buffer.from(x.buffer, x.byteOffset, x.byteLength));
const big = (size: number) => {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 1) b[i] = (i * 7919) & 0xff;
  return b;
};

afterEach(() => vi.restoreAllMocks());

describe('jsonWithBase64', () => {
  it('writes the JSON that JSON.stringify writes, the document last, small or large (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }), fc.constantFrom(0, 10, MiB, MiB + 1, MiB + 2), (fields, size) => {
        const doc = big(size);
        const body = jsonWithBase64({ ...fields, pdf_base64: 'replaced' }, 'pdf_base64', doc);
        const { pdf_base64: _, ...others } = fields;
        expect(utf8(body).toString()).toBe(JSON.stringify({ ...others, pdf_base64: doc.toString('base64') }));
      }),
      { numRuns: 40 },
    );
  });

  it('puts a large document in as bytes: JSON.stringify never sees its base64', () => {
    const stringify = vi.spyOn(JSON, 'stringify');
    const body = jsonWithBase64({ credential_key: 'k' }, 'pdf_base64', big(MiB));
    expect(body).toBeInstanceOf(Uint8Array);
    expect(Math.max(...stringify.mock.results.map((r) => String(r.value).length))).toBeLessThan(100);
  });

  it('reads the document where it is, without a copy of its bytes', () => {
    const whole = big(MiB + 9);
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 3, MiB);
    expect(JSON.parse(utf8(jsonWithBase64({ a: 'é' }, 'pdf_base64', view)).toString())).toEqual({ a: 'é', pdf_base64: Buffer.from(view).toString('base64') });
  });
});

describe('parseJsonBytes', () => {
  const answer = (head: Record<string, unknown>, value: string) => `${JSON.stringify(head).slice(0, -1)},"pdf_base64":"${value}"}`;

  it('reads a large answer as JSON.parse does', () => {
    const value = big(MiB).toString('base64');
    const text = answer({ request_id: 'req_1', status: 'DONE', stamp: { page: 1, note: '"pdf_base64":"x' }, warnings: ['é'] }, value);
    const parse = vi.spyOn(JSON, 'parse');
    expect(parseJsonBytes(utf8(text))).toEqual(JSON.parse(text));
    expect(parseJsonBytes(utf8(text + ' \n'))).toEqual(JSON.parse(text));
    // The member's text was taken from the bytes: only the rest went through JSON.parse.
    expect(parse.mock.calls.filter(([t]) => String(t).length < 1000)).toHaveLength(2);
  });

  it.each([
    ['an escape in the member', (v: string) => answer({ a: 1 }, v.slice(0, 9) + '\\/' + v.slice(9))],
    ['a character outside ASCII in the member', (v: string) => answer({ a: 1 }, v.slice(0, 9) + 'é' + v.slice(9))],
    ['the member inside a nested object', (v: string) => `{"a":1,"inner":{"pdf_base64":"${v}"}}`],
    ['the member not last', (v: string) => `{"pdf_base64":"${v}","a":1}`],
    ['the member twice', (v: string) => `{"pdf_base64":"x",${answer({ a: 1 }, v).slice(1)}`],
  ])('reads %s as JSON.parse does', (_, make) => {
    const text = make(big(MiB).toString('base64'));
    expect(parseJsonBytes(utf8(text))).toEqual(JSON.parse(text));
  });

  it.each([
    ['invalid JSON before the member', (v: string) => `{"a":,"pdf_base64":"${v}"}`],
    ['a truncated answer', (v: string) => `{"a":1,"pdf_base64":"${v}`],
  ])('throws on %s, as JSON.parse does', (_, make) => {
    const text = make(big(MiB).toString('base64'));
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseJsonBytes(utf8(text))).toThrow(SyntaxError);
  });

  it('reads an empty answer as null and a small one with JSON.parse', () => {
    expect(parseJsonBytes(new Uint8Array(0))).toBeNull();
    expect(parseJsonBytes(utf8('{"pdf_base64":"QQ==","a":"é"}'))).toEqual({ pdf_base64: 'QQ==', a: 'é' });
  });
});
