import { PDFContext, PDFHexString, PDFName, PDFObjectParser, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { MAX_NAME_BYTES, parseObjectAt, parseObjectSpan } from '../../../../src/pades/pdf/_object-parser';
import { PdfInputError } from '../../../../src/domain/errors';

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));
const ctx = PDFContext.create();

/** pdf-lib's own parser, the reference our slicing one must match object for object. */
const reference = (s: string) => PDFObjectParser.forBytes(bytes(s), ctx).parseObject();

describe('parseObjectAt reads what pdf-lib reads', () => {
  const samples = [
    // §7.3.4.2 literal strings: nesting, escaped parentheses, a backslash escaping a backslash, octal, line continuation.
    '(plain)',
    '(nested (balanced (twice)) here)',
    '(escaped \\( and \\) parens)',
    '(two backslashes \\\\)',
    '(\\\\\\) still inside)',
    '(octal \\101\\0501 and \\n\\r\\t)',
    '(continued \\\nline)',
    '()',
    // §7.3.4.3 hex strings: white space kept as pdf-lib keeps it, an odd digit count.
    '<48656C6C6F>',
    '<48 65 6c\n6c 6F>',
    '<123>',
    '<>',
    // §7.3.5 names with #xx escapes, §7.3.3 numbers.
    '/Name',
    '/A#20B',
    '/Sig#2FSub',
    '[/a/b(c)<64>1 -2 +3 .5 -.25 4. 0012 6 0 R]',
    '<< /Type /Sig /T (Signature1) /Contents <0a0b> /ByteRange [0 10 20 30] /M (D:20260101000000Z) /N 1.5 >>',
  ];

  it.each(samples)('%s', (sample) => {
    const ours = parseObjectAt(bytes(sample), 0, ctx);
    const theirs = reference(sample);
    expect(ours.constructor).toBe(theirs.constructor);
    expect(ours.toString()).toBe(theirs.toString());
    if (ours instanceof PDFString || ours instanceof PDFHexString) expect(ours.decodeText()).toBe((theirs as PDFString).decodeText());
  });

  it('gives the offset where the object ends', () => {
    expect(parseObjectSpan(bytes('xx (a(b)c) yy'), 3, ctx)).toMatchObject({ end: 10 });
    // After a dictionary pdf-lib looks past the white space for `stream`: the end includes it.
    expect(parseObjectSpan(bytes('<< /A <61> >>\nendobj'), 0, ctx).end).toBe(14);
  });

  it('fails where pdf-lib fails: an unterminated string or hex string', () => {
    expect(() => parseObjectAt(bytes('(never (closed)'), 0, ctx)).toThrow();
    expect(() => reference('(never (closed)')).toThrow();
    expect(() => parseObjectAt(bytes('<414243'), 0, ctx)).toThrow();
    expect(() => reference('<414243')).toThrow();
  });

  it('reads names up to MAX_NAME_BYTES and refuses longer ones (pdf-lib encodes and keeps every name)', () => {
    const name = (n: number) => bytes(`/${'n'.repeat(n)} `);
    expect((parseObjectAt(name(MAX_NAME_BYTES), 0, ctx) as PDFName).asString()).toHaveLength(MAX_NAME_BYTES + 1);
    expect(() => parseObjectAt(name(MAX_NAME_BYTES + 1), 0, ctx)).toThrow(PdfInputError);
    expect(() => parseObjectAt(name(MAX_NAME_BYTES + 1), 0, ctx)).toThrow(`document too complex: a name of ${MAX_NAME_BYTES + 1} bytes at byte 0 (at most ${MAX_NAME_BYTES})`);
  });

  it('reads 50 MB strings and numbers in linear time, refuses a 50 MB name at once (pdf-lib: 2.95 GB for 50 MB of hex)', () => {
    const size = 50 * 1024 * 1024;
    const hex = new Uint8Array(size + 2).fill(0x61);
    hex[0] = 0x3c;
    hex[size + 1] = 0x3e;
    const literal = new Uint8Array(size + 2).fill(0x5c); // backslashes: each escapes the next
    literal[0] = 0x28;
    literal[size + 1] = 0x29;
    const name = new Uint8Array(size + 1).fill(0x62);
    name[0] = 0x2f;
    const digits = new Uint8Array(size).fill(0x30);
    const t0 = performance.now();
    expect((parseObjectAt(hex, 0, ctx) as PDFHexString).asString()).toHaveLength(size);
    expect((parseObjectAt(literal, 0, ctx) as PDFString).asString()).toHaveLength(size);
    expect(() => parseObjectAt(name, 0, ctx)).toThrow('document too complex: a name of');
    expect(parseObjectAt(digits, 0, ctx).toString()).toBe('0');
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
