import UPNG from '@pdf-lib/upng';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { checkPngLimits, PNG_LIMITS, pngDecodedBytes, readPngHeader, type PngHeader } from '../../../src/platform/png-limits';
import { dimensionBombPng, makePng, zeroScanlineBytes, type PngSpec } from '../../helpers/platform-double/bad-data';

/** Issue 15: a stamp image's cost read from its header, on real PNG files made with node's zlib. */
const header = (bytes: Uint8Array): PngHeader => {
  const h = readPngHeader(bytes);
  if (typeof h === 'string') throw new Error(h);
  return h;
};

describe('readPngHeader', () => {
  it('reads IHDR of the files pdf-lib decodes, and the decoder agrees on their size', async () => {
    const specs: PngSpec[] = [
      { width: 37, height: 11, bitDepth: 8, colourType: 6 },
      { width: 13, height: 7, bitDepth: 1, colourType: 0 },
      { width: 9, height: 5, bitDepth: 4, colourType: 3 },
      { width: 21, height: 19, bitDepth: 16, colourType: 2, interlaced: true },
      { width: 3, height: 2, bitDepth: 8, colourType: 4, interlaced: true },
    ];
    for (const spec of specs) {
      const png = makePng(spec);
      const h = header(png);
      expect(h).toEqual({ width: spec.width, height: spec.height, bitDepth: spec.bitDepth, colourType: spec.colourType, interlaced: Boolean(spec.interlaced), animated: false });
      // The same file through the decoder pdf-lib uses: its size, and its RGBA frame.
      const decoded = UPNG.decode(new Uint8Array(png).buffer);
      expect([decoded.width, decoded.height, decoded.depth, decoded.ctype]).toEqual([spec.width, spec.height, spec.bitDepth, spec.colourType]);
      expect(new Uint8Array(UPNG.toRGBA8(decoded)[0]!).length).toBe(spec.width * spec.height * 4);
      // The filtered scanlines, counted pixel by pixel per Adam7 pass in the helper.
      expect(pngDecodedBytes(h)).toBe(Math.max(zeroScanlineBytes(spec), spec.width * spec.height * 4));
      const doc = await PDFDocument.create();
      const image = await doc.embedPng(png);
      expect([image.width, image.height]).toEqual([spec.width, spec.height]);
    }
  });

  it('names what makes bytes no PNG', () => {
    const png = makePng({ width: 4, height: 4 });
    expect(readPngHeader(Buffer.from('GIF89a........................'))).toBe('is not a PNG image (no PNG signature)');
    expect(readPngHeader(png.subarray(0, 20))).toBe('is not a PNG image (no IHDR chunk of 13 bytes first)');
    const wrongDepth = Buffer.from(png);
    wrongDepth[24] = 4; // RGBA at 4 bits: Table 11.1 allows 8 and 16 only
    expect(readPngHeader(wrongDepth)).toBe('has bit depth 4, which colour type 6 does not allow (8, 16)');
    const zero = Buffer.from(png);
    zero.writeUInt32BE(0, 16);
    expect(readPngHeader(zero)).toBe('declares 0 × 4 pixels (each side must be 1 to 2^31 - 1)');
    const colour = Buffer.from(png);
    colour[25] = 5;
    expect(readPngHeader(colour)).toBe('has colour type 5 (PNG knows 0, 2, 3, 4 and 6)');
  });

  it('sees an APNG animation control chunk before the image data', () => {
    expect(header(makePng({ width: 2, height: 2, animated: true })).animated).toBe(true);
  });
});

describe('checkPngLimits (2000 × 2000 pixels, 16 MiB decoded)', () => {
  it('refuses the dimension bomb from its header: 20000 × 20000 of one colour in a few kilobytes', () => {
    const bomb = dimensionBombPng();
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(checkPngLimits(bomb)).toBe('is 20000 × 20000 pixels; at most 2000 × 2000 are allowed');
  });

  it('takes the largest image within the caps, and refuses one pixel more a side', () => {
    expect(checkPngLimits(makePng({ width: 2000, height: 2000, bitDepth: 8, colourType: 6 }))).toBeNull();
    expect(checkPngLimits(makePng({ width: 2001, height: 10, bitDepth: 1, colourType: 0 }))).toBe('is 2001 × 10 pixels; at most 2000 × 2000 are allowed');
    expect(checkPngLimits(makePng({ width: 10, height: 2001, bitDepth: 1, colourType: 0 }))).toBe('is 10 × 2001 pixels; at most 2000 × 2000 are allowed');
  });

  it('refuses an image within the sides whose scanlines are over 16 MiB (16-bit RGBA)', () => {
    // 2000 rows of 1 + 2000 × 8 bytes: 32,002,000 bytes of scanlines.
    expect(checkPngLimits(makePng({ width: 2000, height: 2000, bitDepth: 16, colourType: 6 }))).toBe(
      `would decode to 32002000 bytes (2000 × 2000, bit depth 16, colour type 6); at most ${PNG_LIMITS.maxDecodedBytes} are allowed`,
    );
    // Smaller caps, the same rule on the RGBA frame: 100 × 100 × 4 = 40,000 bytes.
    expect(checkPngLimits(makePng({ width: 100, height: 100, bitDepth: 1, colourType: 0 }), { maxSide: 2000, maxDecodedBytes: 39_999 })).toBe(
      'would decode to 40000 bytes (100 × 100, bit depth 1, colour type 0); at most 39999 are allowed',
    );
  });

  it('refuses an animation and a file larger than the decoded cap', () => {
    expect(checkPngLimits(makePng({ width: 2, height: 2, animated: true }))).toBe('is an animated PNG (acTL); a stamp takes one still image');
    const png = makePng({ width: 2, height: 2 });
    expect(checkPngLimits(png, { maxSide: 2000, maxDecodedBytes: png.length - 1 })).toBe(`is a ${png.length}-byte file; at most ${png.length - 1} bytes are allowed`);
  });
});
