import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import {
  byteRangeFor, byteRangePlaceholder, contentsPlaceholder, digestByteRange, embedContents, locateSignatureSlots, patchByteRange,
} from '../../../../src/pades/pdf/byterange';
import { SigningError } from '../../../../src/domain/errors';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => Buffer.from(b).toString('latin1');

function sigObject(): Uint8Array {
  const placeholder = byteRangePlaceholder();
  const raw = new Uint8Array(placeholder.sizeInBytes());
  placeholder.copyBytesInto(raw, 0);
  const br = dec(raw);
  return enc(`%PDF-1.7\n9 0 obj\n<<\n/ByteRange ${br}\n/Contents <${contentsPlaceholder(8).asString()}>\n>>\nendobj\ntrailer\n`);
}

describe('byterange', () => {
  it('writes fixed-width placeholders', () => {
    expect(byteRangePlaceholder().toString()).toBe('PDFInvalidObject(45 bytes)');
    expect(contentsPlaceholder(6).toString()).toBe('<000000>');
  });

  it('locates the slots, computes and patches the ByteRange in place', () => {
    const pdf = sigObject();
    const text = dec(pdf);
    const slots = locateSignatureSlots(pdf, 0, pdf.length);
    expect(slots).toEqual({ byteRangeOffset: text.indexOf('['), contentsOffset: text.indexOf('<0') + 1, contentsHexLength: 8 });
    const range = byteRangeFor(slots, pdf.length);
    expect(range).toEqual([0, text.indexOf('<0'), text.indexOf('<0') + 10, pdf.length - text.indexOf('<0') - 10]);
    patchByteRange(pdf, slots.byteRangeOffset, range);
    expect(dec(pdf)).toContain(`/ByteRange [0 ${range[1]} ${range[2]} ${range[3]}`);
    expect(dec(pdf).length).toBe(text.length);
    expect(dec(pdf)).toMatch(/\/ByteRange \[0 \d+ \d+ \d+ +\]\n/);
  });

  it('digests both pieces exactly like a concatenation would', () => {
    const pdf = new Uint8Array(3_000_000).map((_, i) => i % 251);
    const range: [number, number, number, number] = [0, 1_500_000, 1_500_100, 1_499_900];
    const expected = createHash('sha256').update(pdf.subarray(0, 1_500_000)).update(pdf.subarray(1_500_100)).digest('hex');
    expect(Buffer.from(digestByteRange(pdf, range)).toString('hex')).toBe(expected);
  });

  it('digests a document given in parts (input, then update) as the file they make, wherever the parts split', () => {
    const pdf = new Uint8Array(3_000_000).map((_, i) => (i * 7) % 253);
    const range: [number, number, number, number] = [0, 2_600_000, 2_600_100, 399_900];
    const whole = Buffer.from(digestByteRange(pdf, range)).toString('hex');
    // Splits: in the first piece, at its end, in the gap, in the second piece, and three parts.
    for (const cuts of [[1_000_000], [2_600_000], [2_600_050], [2_900_000], [5, 2_600_099, 2_999_999]]) {
      const bounds = [0, ...cuts, pdf.length];
      const parts = bounds.slice(1).map((end, i) => pdf.subarray(bounds[i], end));
      expect(Buffer.from(digestByteRange(parts, range)).toString('hex'), `cut at ${cuts.join(', ')}`).toBe(whole);
    }
  });

  it('embeds the CMS hex right-padded with zeros and refuses one too large', () => {
    const pdf = enc('<0000000000>');
    embedContents(pdf, 1, 10, Uint8Array.of(0x30, 0x03));
    expect(dec(pdf)).toBe('<3003000000>');
    expect(() => embedContents(pdf, 1, 10, new Uint8Array(6))).toThrow(SigningError);
    expect(() => embedContents(pdf, 1, 10, new Uint8Array(6))).toThrow(
      'the CMS signature (6 bytes) does not fit the reserved /Contents (5 bytes)',
    );
  });
});
