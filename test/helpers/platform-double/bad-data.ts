/**
 * Catalogue entries a platform should never send, made as an attacker would (issue 15): real PNG
 * files of any declared size (a dimension bomb is a few kilobytes of deflated zeros) and a
 * certificate chain whose signer is not DER. Serve them through the double's control API
 * (`upsertDesign`, `upsertCredential`); the unit tests use the PNGs directly.
 */
import { crc32, deflateSync } from 'node:zlib';

export interface PngSpec {
  width: number;
  height: number;
  /** ISO/IEC 15948 §11.2.2: 1, 2, 4, 8 or 16, as the colour type allows (default 8). */
  bitDepth?: number;
  /** 0 grey, 2 RGB, 3 indexed, 4 grey + alpha, 6 RGBA (default 6). */
  colourType?: number;
  /** Adam7 (§8.2). */
  interlaced?: boolean;
  /** An APNG acTL chunk before the image data (one frame, played once). */
  animated?: boolean;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * The bytes of the filtered scanlines of an all-zero image (filter type 0 on every row): counted
 * pixel by pixel per Adam7 pass, not by the formula the service uses, so a test can compare them.
 */
export function zeroScanlineBytes(s: PngSpec): number {
  const bits = (s.bitDepth ?? 8) * CHANNELS[s.colourType ?? 6]!;
  const passes = s.interlaced ? PASSES : [[0, 0, 1, 1]];
  let total = 0;
  for (const [x0, y0, dx, dy] of passes) {
    let columns = 0;
    for (let x = x0!; x < s.width; x += dx!) columns += 1;
    if (columns === 0) continue;
    for (let y = y0!; y < s.height; y += dy!) total += 1 + Math.ceil((columns * bits) / 8);
  }
  return total;
}

/** A real PNG: signature, IHDR, PLTE for indexed colour, optional acTL, one IDAT of zero pixels, IEND. */
export function makePng(s: PngSpec): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(s.width, 0);
  ihdr.writeUInt32BE(s.height, 4);
  ihdr[8] = s.bitDepth ?? 8;
  ihdr[9] = s.colourType ?? 6;
  ihdr[12] = s.interlaced ? 1 : 0;
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(1, 0); // num_frames
  actl.writeUInt32BE(1, 4); // num_plays
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(s.colourType === 3 ? [chunk('PLTE', Buffer.from([0x20, 0x40, 0x80]))] : []),
    ...(s.animated ? [chunk('acTL', actl)] : []),
    chunk('IDAT', deflateSync(Buffer.alloc(zeroScanlineBytes(s)), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The dimension bomb of issue 15: 20,000 × 20,000 pixels of one colour. At 1 bit per pixel the
 * zeros deflate to about 50 KB, and pdf-lib would make a 1.6 GB RGBA frame of them.
 */
export function dimensionBombPng(): Buffer {
  return makePng({ width: 20_000, height: 20_000, bitDepth: 1, colourType: 0 });
}

/** A chain whose signer certificate is cut short: still base64, no longer DER. */
export function chainWithTruncatedSigner(chain: string[]): string[] {
  const signer = Buffer.from(chain[0]!, 'base64');
  return [signer.subarray(0, Math.floor(signer.length / 2)).toString('base64'), ...chain.slice(1)];
}
