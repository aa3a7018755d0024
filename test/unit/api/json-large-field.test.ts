import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitLargeStringField } from '../../../src/api/json-large-field';

const split = (json: string) => splitLargeStringField(Buffer.from(json, 'utf8'), 'pdf_base64');

describe('splitLargeStringField', () => {
  it('cuts the member out of the body without copying it', async () => {
    const r = await split(' {"credential_key":"k","pdf_base64":"JVBERi0x","variables":{"a":"}\\""},"x":[1,{"y":"]"}]} ');
    expect(Buffer.from(r!.value.bytes).toString('latin1')).toBe('JVBERi0x');
    expect(JSON.parse(r!.rest.toString('utf8'))).toEqual({ credential_key: 'k', pdf_base64: '', variables: { a: '}"' }, x: [1, { y: ']' }] });
  });

  it.each([
    ['escapes inside the value', '{"pdf_base64":"JVBE\\nRi0x"}'],
    ['a non-string value', '{"pdf_base64":5}'],
    ['a repeated member', '{"pdf_base64":"a","pdf_base64":"b"}'],
    ['no such member', '{"credential_key":"k"}'],
    ['not an object', '["pdf_base64"]'],
    ['trailing garbage', '{"pdf_base64":"a"} x'],
    ['invalid JSON', '{"pdf_base64":"a",}x'],
    ['an unterminated string', '{"pdf_base64":"abc'],
    ['a value with characters outside the base64 alphabet', '{"pdf_base64":"JVBE Ri0x"}'],
  ])('leaves %s to JSON.parse', async (_, json) => expect(await split(json)).toBeNull());

  it('agrees with JSON.parse whenever it answers (property)', async () => {
    const b64 = fc.stringMatching(/^[A-Za-z0-9+/=]{0,40}$/);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue()), b64, async (others, value) => {
        const text = JSON.stringify({ ...others, pdf_base64: value });
        const r = await split(text);
        expect(r).not.toBeNull();
        expect(Buffer.from(r!.value.bytes).toString('latin1')).toBe(value);
        expect(JSON.parse(r!.rest.toString('utf8'))).toEqual({ ...(JSON.parse(text) as object), pdf_base64: '' });
      }),
      { numRuns: 300 },
    );
  });
});

describe('splitLargeStringField and invalid JSON', () => {
  it('never accepts what JSON.parse refuses: a raw line break inside the value', async () => {
    expect(await split('{"pdf_base64":"JVBE\nRi0x"}')).toBeNull();
    expect(() => JSON.parse('{"pdf_base64":"JVBE\nRi0x"}')).toThrow();
  });

  it('finds the end of a value with an escape after its quote, and one with escapes before it', async () => {
    // The native search finds the first quote; a backslash before it means the walk decides.
    expect(Buffer.from((await split('{"pdf_base64":"JVBERi0x","reason":"a \\"quoted\\" word"}'))!.value.bytes).toString('latin1')).toBe('JVBERi0x');
    expect(Buffer.from((await split('{"reason":"a \\"quoted\\" word","pdf_base64":"JVBERi0x"}'))!.value.bytes).toString('latin1')).toBe('JVBERi0x');
    expect(JSON.parse((await split('{"reason":"a \\"quoted\\" word","pdf_base64":"JVBERi0x"}'))!.rest.toString('utf8'))).toEqual({ reason: 'a "quoted" word', pdf_base64: '' });
  });
});
