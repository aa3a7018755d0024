/**
 * Name comparison per RFC 5280 §7.1 with RFC 4518 string preparation (pki/name-match.ts,
 * pki/_string-prep.ts): the examples of RFC 4518 §2 and the string types certificates mix.
 */
import { describe, expect, it } from 'vitest';
import { oid, readDerExact, seq, setOf, tlv, type Der } from '../../../src/der/der';
import { prepareCaseIgnore } from '../../../src/pki/_string-prep';
import { namesMatch, nameWithinSubtree, valuesMatch } from '../../../src/pki/name-match';

const CN = '2.5.4.3';
const O = '2.5.4.10';
const C = '2.5.4.6';
const utf8 = (s: string): Uint8Array => tlv(0x0c, new TextEncoder().encode(s));
const printable = (s: string): Uint8Array => tlv(0x13, new TextEncoder().encode(s));
const bmp = (s: string): Uint8Array => tlv(0x1e, Uint8Array.from(Buffer.from(s, 'utf16le').swap16()));
const universal = (s: string): Uint8Array => tlv(0x1c, Uint8Array.from([...s].flatMap((ch) => { const cp = ch.codePointAt(0)!; return [cp >>> 24, (cp >>> 16) & 0xff, (cp >>> 8) & 0xff, cp & 0xff]; })));
const der = (bytes: Uint8Array): Der => readDerExact(bytes);
const atv = (type: string, value: Uint8Array): Uint8Array => seq(oid(type), value);
/** A Name from RDNs, most general first; an RDN with several attributes is a SET OF them. */
const name = (...rdns: Uint8Array[][]): Der => der(seq(...rdns.map((attrs) => setOf(...attrs))));

describe('RFC 4518 string preparation (caseIgnoreMatch)', () => {
  it('§2.6.1 insignificant space: leading, trailing and inner runs', () => {
    expect(prepareCaseIgnore('  foo   bar  ')).toBe(prepareCaseIgnore('foo bar'));
    expect(prepareCaseIgnore('foobar')).not.toBe(prepareCaseIgnore('foo bar'));
    expect(prepareCaseIgnore('   ')).toBe(prepareCaseIgnore(''));
  });

  it('§2.2 map: whitespace controls and separators to SPACE, soft hyphen and zero width space to nothing', () => {
    expect(prepareCaseIgnore('foo\tbar\u00A0baz\u3000qux')).toBe('foo bar baz qux');
    expect(prepareCaseIgnore('Te\u00ADst\u200B CA')).toBe('test ca');
    expect(prepareCaseIgnore('a\u0085b\u2028c')).toBe('a b c');
  });

  it('case folding per RFC 3454 B.2 and NFKC (§2.3)', () => {
    expect(prepareCaseIgnore('Straße')).toBe(prepareCaseIgnore('STRASSE'));
    expect(prepareCaseIgnore('ΣΊΣΥΦΟΣ')).toBe(prepareCaseIgnore('σίσυφος'));
    expect(prepareCaseIgnore('\uFB01le')).toBe('file'); // the ﬁ ligature
    expect(prepareCaseIgnore('\uFF34\uFF25\uFF33\uFF34')).toBe('test'); // fullwidth TEST
    expect(prepareCaseIgnore('Cafe\u0301')).toBe(prepareCaseIgnore('CAFÉ')); // combining acute against precomposed
  });

  it('§2.4 prohibit: private use and U+FFFD make the value Undefined', () => {
    expect(prepareCaseIgnore('a\uE000b')).toBeNull();
    expect(prepareCaseIgnore('a\uFFFDb')).toBeNull();
  });
});

describe('attribute values (RFC 5280 §7.1)', () => {
  it('PrintableString, UTF8String, BMPString and UniversalString of the same text match, case and spaces aside', () => {
    const values = [printable('Test  CA'), utf8('TEST CA'), bmp(' test ca '), universal('Test CA')].map(der);
    for (const a of values) for (const b of values) expect(valuesMatch(a, b)).toBe(true);
    expect(valuesMatch(der(printable('Test CA')), der(utf8('Test CB')))).toBe(false);
  });

  it('non-string values compare byte for byte; bad UTF-8 matches only itself', () => {
    expect(valuesMatch(der(tlv(0x04, Uint8Array.of(1, 2))), der(tlv(0x04, Uint8Array.of(1, 2))))).toBe(true);
    expect(valuesMatch(der(tlv(0x04, Uint8Array.of(0x41))), der(printable('A')))).toBe(false);
    const bad = der(tlv(0x0c, Uint8Array.of(0xc3, 0x28)));
    expect(valuesMatch(bad, bad)).toBe(true);
    expect(valuesMatch(bad, der(utf8('\u00c3(')))).toBe(false);
  });

  it('values with a prohibited code point match only the same encoding', () => {
    expect(valuesMatch(der(utf8('A\uE000')), der(utf8('A\uE000')))).toBe(true);
    expect(valuesMatch(der(utf8('A\uE000')), der(utf8('a\uE000')))).toBe(false);
  });
});

describe('distinguished names', () => {
  const issuer = name([atv(C, printable('US'))], [atv(O, printable('Test Certificates 2011'))], [atv(CN, printable('Good CA'))]);

  it('match with other string types, case and spaces (PKITS 4.3.3-4.3.5, 4.3.10, 4.3.11)', () => {
    expect(namesMatch(issuer, name([atv(C, printable('us'))], [atv(O, utf8(' test  CERTIFICATES 2011'))], [atv(CN, utf8('GOOD CA '))]))).toBe(true);
  });

  it('do not match with RDNs in another order, one RDN more or less, or another attribute type', () => {
    expect(namesMatch(issuer, name([atv(O, printable('Test Certificates 2011'))], [atv(C, printable('US'))], [atv(CN, printable('Good CA'))]))).toBe(false);
    expect(namesMatch(issuer, name([atv(C, printable('US'))], [atv(O, printable('Test Certificates 2011'))]))).toBe(false);
    expect(namesMatch(issuer, name([atv(C, printable('US'))], [atv(O, printable('Test Certificates 2011'))], [atv(O, printable('Good CA'))]))).toBe(false);
  });

  it('compare multi-valued RDNs as sets', () => {
    const a = name([atv(C, printable('US'))], [atv(CN, utf8('Alice')), atv(O, utf8('Example'))]);
    const b = der(seq(tlv(0x31, atv(C, printable('US'))), tlv(0x31, atv(O, printable('EXAMPLE')), atv(CN, printable('alice')))));
    expect(namesMatch(a, b)).toBe(true);
    expect(namesMatch(a, name([atv(C, printable('US'))], [atv(CN, utf8('Alice'))], [atv(O, utf8('Example'))]))).toBe(false);
  });

  it('are within a subtree when their leading RDNs match the base', () => {
    const base = name([atv(C, printable('US'))], [atv(O, printable('Test Certificates 2011'))]);
    expect(nameWithinSubtree(issuer, base)).toBe(true);
    expect(nameWithinSubtree(issuer, name([atv(C, utf8('us'))]))).toBe(true);
    expect(nameWithinSubtree(base, issuer)).toBe(false);
    expect(nameWithinSubtree(issuer, name([atv(C, printable('US'))], [atv(O, printable('Other'))]))).toBe(false);
    expect(nameWithinSubtree(issuer, der(seq()))).toBe(true); // the empty base holds every name
  });
});
