/**
 * What a stamp's PNG will cost to decode, read from its header before anything decodes it. A PNG's
 * size on the wire says nothing about its pixels: one colour over 20,000 × 20,000 deflates to some
 * 30 KB, and pdf-lib's decoder (UPNG) allocates the whole filtered image, then the 8-bit RGBA
 * frame, then the colour and alpha planes (+2 GB and a 3.6 s freeze on every signature with such a
 * design, measured on a 2-core machine). So the caps apply to what the header declares. Pure: bytes
 * in, a verdict out; nothing here inflates a byte.
 */

/** PNG signature (ISO/IEC 15948 §5.2, RFC 2083 §3.1). */
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * A stamp is at most a few inches wide; 2,000 pixels a side is over 600 dpi on a
 * 3-inch stamp, and 16 MiB holds the 8-bit RGBA frame of the largest such image (2000 × 2000 × 4
 * = 16,000,000 bytes).
 */
export const PNG_LIMITS = { maxSide: 2_000, maxDecodedBytes: 16 * 1024 * 1024 } as const;

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  interlaced: boolean;
  /** An APNG animation control chunk (acTL) precedes the image data. */
  animated: boolean;
}

/** ISO/IEC 15948 §11.2.2 Table 11.1: the bit depths each colour type allows, and its channels. */
const COLOUR_TYPES: Record<number, { depths: number[]; channels: number }> = {
  0: { depths: [1, 2, 4, 8, 16], channels: 1 }, // greyscale
  2: { depths: [8, 16], channels: 3 }, // truecolour
  3: { depths: [1, 2, 4, 8], channels: 1 }, // indexed
  4: { depths: [8, 16], channels: 2 }, // greyscale with alpha
  6: { depths: [8, 16], channels: 4 }, // truecolour with alpha
};

/** §5.3: chunk lengths and IHDR dimensions are at most 2^31 - 1. */
const MAX_U31 = 0x7fff_ffff;

const u32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const typeAt = (b: Uint8Array, at: number): string => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/**
 * The header of `bytes`, or the problem that makes it no PNG we would decode. Reads the IHDR
 * (§11.2.2: it must be the first chunk) and walks the chunk headers up to the first IDAT, no
 * further: an acTL there makes an animation (APNG, PNG third edition §11.3.6.1), whose every
 * frame pdf-lib decodes before it refuses animations.
 */
export function readPngHeader(bytes: Uint8Array): PngHeader | string {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) return 'is not a PNG image (no PNG signature)';
  if (bytes.length < 8 + 8 + 13 || typeAt(bytes, 12) !== 'IHDR' || u32(bytes, 8) !== 13) return 'is not a PNG image (no IHDR chunk of 13 bytes first)';
  const width = u32(bytes, 16);
  const height = u32(bytes, 20);
  const bitDepth = bytes[24]!;
  const colourType = bytes[25]!;
  if (width === 0 || height === 0 || width > MAX_U31 || height > MAX_U31) return `declares ${width} × ${height} pixels (each side must be 1 to 2^31 - 1)`;
  const colour = COLOUR_TYPES[colourType];
  if (!colour) return `has colour type ${colourType} (PNG knows 0, 2, 3, 4 and 6)`;
  if (!colour.depths.includes(bitDepth)) return `has bit depth ${bitDepth}, which colour type ${colourType} does not allow (${colour.depths.join(', ')})`;
  if (bytes[26] !== 0 || bytes[27] !== 0) return 'uses a compression or filter method other than 0';
  if (bytes[28] !== 0 && bytes[28] !== 1) return `has interlace method ${bytes[28]} (0 or 1)`;
  let animated = false;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = u32(bytes, at);
    const type = typeAt(bytes, at + 4);
    if (length > MAX_U31) return `has a ${type} chunk longer than 2^31 - 1 bytes`;
    if (type === 'IDAT' || type === 'IEND') break;
    if (type === 'acTL') animated = true;
    at += 12 + length;
  }
  return { width, height, bitDepth, colourType, interlaced: bytes[28] === 1, animated };
}

/** Bytes of one pass's filtered scanlines: a filter byte per row (§9.2) and its packed pixels (§7.2). */
function scanlineBytes(width: number, height: number, bitsPerPixel: number): number {
  return width === 0 || height === 0 ? 0 : height * (1 + Math.ceil((width * bitsPerPixel) / 8));
}

/** Adam7 (§8.2): starting column and row, and the steps between them, of the seven passes. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * The largest buffer a decoder builds for this image: the inflated, filtered scanlines (all seven
 * Adam7 passes when interlaced), or the 8-bit RGBA frame pdf-lib converts every PNG to
 * (`UPNG.toRGBA8`), whichever is larger.
 */
export function pngDecodedBytes(h: PngHeader): number {
  const bitsPerPixel = h.bitDepth * COLOUR_TYPES[h.colourType]!.channels;
  const filtered = h.interlaced
    ? ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + scanlineBytes(Math.ceil((h.width - x0) / dx), Math.ceil((h.height - y0) / dy), bitsPerPixel), 0)
    : scanlineBytes(h.width, h.height, bitsPerPixel);
  return Math.max(filtered, h.width * h.height * 4);
}

/**
 * The problem that keeps `bytes` out of a stamp, or null: no PNG, an animation, more than
 * `maxSide` pixels a side, or more than `maxDecodedBytes` decoded. The file itself is held to the
 * same byte cap: deflate adds at most 5 bytes per 64 KiB stored block (RFC 1951 §3.2.4), so no
 * image within the decoded cap needs a larger file, save for ancillary chunks a stamp has no use
 * for.
 */
export function checkPngLimits(bytes: Uint8Array, limits: { maxSide: number; maxDecodedBytes: number } = PNG_LIMITS): string | null {
  const header = readPngHeader(bytes);
  if (typeof header === 'string') return header;
  if (header.animated) return 'is an animated PNG (acTL); a stamp takes one still image';
  if (header.width > limits.maxSide || header.height > limits.maxSide) {
    return `is ${header.width} × ${header.height} pixels; at most ${limits.maxSide} × ${limits.maxSide} are allowed`;
  }
  const decoded = pngDecodedBytes(header);
  if (decoded > limits.maxDecodedBytes) {
    return `would decode to ${decoded} bytes (${header.width} × ${header.height}, bit depth ${header.bitDepth}, colour type ${header.colourType}); at most ${limits.maxDecodedBytes} are allowed`;
  }
  if (bytes.length > limits.maxDecodedBytes) return `is a ${bytes.length}-byte file; at most ${limits.maxDecodedBytes} bytes are allowed`;
  return null;
}
