import { describe, expect, it } from 'vitest';
import { hostName } from '../../../src/api/middleware/host-check';
import { assertDisplayText, assertKnownFields, assertNotReserved, optionalDisplayText, optionalString, optionalStringMap, parseLimit, parseWait, requiredString } from '../../../src/api/validate';

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

describe('bounds (CONTRACT: every request field)', () => {
  const x = (n: number) => 'x'.repeat(n);

  it('text fields: 1,000 characters pass, 1,001 are refused naming the field and the bound', () => {
    for (const name of ['reason', 'location', 'signer_name', 'design_key']) {
      expect(optionalString({ [name]: x(1000) }, name)).toBe(x(1000));
      expect(() => optionalString({ [name]: x(1001) }, name)).toThrow(`${name} must be at most 1000 characters, got 1001`);
    }
    expect(requiredString({ credential_key: x(1000) }, 'credential_key')).toBe(x(1000));
    expect(() => requiredString({ credential_key: x(1001) }, 'credential_key')).toThrow('credential_key must be at most 1000 characters, got 1001');
    // The size that aborted V8 in the stamp layout is refused by the same check, in constant time.
    expect(() => optionalString({ reason: x(10_000_000) }, 'reason')).toThrow('reason must be at most 1000 characters, got 10000000');
  });

  it('variables: each value at most 1,000 characters', () => {
    expect(optionalStringMap({ variables: { note: x(1000) } }, 'variables')).toEqual({ note: x(1000) });
    expect(() => optionalStringMap({ variables: { note: x(1001) } }, 'variables')).toThrow('variables.note must be at most 1000 characters, got 1001');
    expect(() => optionalStringMap({ variables: { a: 'ok', note: x(120_000_000) } }, 'variables')).toThrow('variables.note must be at most 1000 characters, got 120000000');
  });

  it('variables: at most 64 entries, counted before any value is read', () => {
    const many = (n: number, value: unknown = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, value]));
    expect(Object.keys(optionalStringMap({ variables: many(64) }, 'variables'))).toHaveLength(64);
    expect(() => optionalStringMap({ variables: many(65) }, 'variables')).toThrow('variables must have at most 64 entries, got 65');
    expect(() => optionalStringMap({ variables: many(65, 7) }, 'variables')).toThrow('variables must have at most 64 entries, got 65');
  });

  it('variables: names at most 64 characters', () => {
    expect(optionalStringMap({ variables: { [x(64)]: 'v' } }, 'variables')).toEqual({ [x(64)]: 'v' });
    expect(() => optionalStringMap({ variables: { [x(65)]: 'v' } }, 'variables')).toThrow(`variables names must be at most 64 characters, got 65 ("${x(40)}…")`);
  });

  it('unknown fields: a message lists ten names at most, however many arrive', () => {
    const body = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`f${i}`, 1]));
    expect(() => assertKnownFields(body, ['a'])).toThrow('unknown fields: f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 (and 99990 more); allowed: a');
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

describe('text shown by the signature (issue 10: spoofed text)', () => {
  it('refuses bidi embeddings, overrides, isolates and C0/C1 controls, naming the field', () => {
    for (const ch of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u0000', '\n', '\r', '\t', '\u001b', '\u007f', '\u0085', '\u009b']) {
      expect(() => optionalDisplayText({ signer_name: `Alice${ch}evil` }, 'signer_name')).toThrow(
        /^signer_name must not contain control or bidirectional control characters; found a (bidirectional control|control character) U\+[0-9A-F]{4} at position 5$/,
      );
    }
    expect(() => optionalDisplayText({ reason: 'pay \u202eDSU 001' }, 'reason')).toThrow('reason must not contain control or bidirectional control characters; found a bidirectional control U+202E at position 4');
    expect(() => optionalStringMap({ variables: { Title: 'ok', Note: 'a\u2066b' } }, 'variables')).toThrow(
      'variables.Note must not contain control or bidirectional control characters; found a bidirectional control U+2066 at position 1',
    );
  });

  it('keeps right-to-left names, marks and ordinary Unicode valid', () => {
    for (const text of ['محمد بن سلمان', 'עברית', 'Zoë Ø. Müller', '山田 太郎', 'a\u200fb\u200ec\u061cd', 'Ünïcødé — “quoted”']) {
      expect(optionalDisplayText({ location: text }, 'location')).toBe(text);
      expect(() => assertDisplayText('location', text)).not.toThrow();
    }
    expect(optionalDisplayText({ location: null }, 'location')).toBeNull();
  });
});

describe('reserved names', () => {
  it('assertNotReserved names the field; other names pass', () => {
    expect(() => assertNotReserved('__proto__', 'var.__proto__')).toThrow('var.__proto__ is not allowed: __proto__, constructor, prototype are reserved names');
    expect(() => assertNotReserved('prototype', 'prototype')).toThrow('prototype is not allowed');
    expect(() => assertNotReserved('Constructor', 'x')).not.toThrow();
    // Before the unknown-field message, so the reserved name is what the caller reads.
    expect(() => assertKnownFields({ a: 1, constructor: 2 }, ['a'])).toThrow('field constructor is not allowed: __proto__, constructor, prototype are reserved names');
  });
});

describe('text that would look like other text (issue 31: stamps that read alike)', () => {
  it('refuses invisible characters, piled-up combining marks and look-alike letters of two scripts, naming the field', () => {
    expect(() => optionalDisplayText({ signer_name: 'Ali\u200bce' }, 'signer_name')).toThrow('signer_name contains an invisible character U+200B at position 3: text that looks the same would differ');
    for (const ch of ['\u200c', '\u200d', '\u2060', '\u00ad', '\ufeff', '\u034f', '\u3164']) {
      expect(() => optionalDisplayText({ reason: `a${ch}b` }, 'reason'), ch).toThrow(/^reason contains an invisible character U\+[0-9A-F]{4} at position 1/);
    }
    expect(() => optionalStringMap({ variables: { Name: `Z${'\u0301'.repeat(200)}` } }, 'variables')).toThrow('variables.Name stacks 199 combining marks on one character at position 1 (at most 3)'); // NFC makes Z + U+0301 one letter first
    expect(() => optionalDisplayText({ signer_name: '\u0410lice Smith' }, 'signer_name')).toThrow('signer_name mixes Cyrillic and Latin letters in one word ("\u0410lice"): letters of different scripts that look alike are refused');
    expect(() => optionalDisplayText({ location: 'P\u0430ris' }, 'location')).toThrow(/^location mixes Latin and Cyrillic letters in one word/);
  });

  it('keeps every script on its own, Japanese and Korean mixes, Vietnamese diacritics and words of different scripts side by side', () => {
    for (const text of ['Алиса Смирнова', 'Αλίκη', 'Tiếng Việt: Nguyễn', '東京タワーで', 'ソフトウェアABC', '한국어漢字', 'Alice (Алиса)', 'e\u0301\u0302\u0303']) {
      expect(optionalDisplayText({ location: text }, 'location'), text).toBe(text.normalize('NFC'));
    }
  });

  it('keeps the NFC form, so text that looks the same is the same', () => {
    expect(optionalDisplayText({ signer_name: 'Zoe\u0308' }, 'signer_name')).toBe('Zoë');
    expect(optionalStringMap({ variables: { N: 'Rene\u0301' } }, 'variables')).toEqual({ N: 'René' });
  });
});
