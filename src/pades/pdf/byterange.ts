/**
 * /ByteRange and /Contents of the signature dictionary (ISO 32000-1 §12.8.1, Table 252).
 * Both are written as fixed-width placeholders so the final values fit in place: the ByteRange
 * is patched once the offsets are known, the Contents once the CMS returns. The ByteRange must
 * cover the whole file except the Contents hex string, delimiters included (§12.8.1 NOTE, and
 * ETSI EN 319 142-1 §5.1 for PAdES).
 */
import { createHash } from 'node:crypto';
import { PDFHexString, PDFInvalidObject } from 'pdf-lib';
import { SigningError } from '../../domain/errors';

/** Ten digits per number: offsets up to 9,999,999,999 bytes. */
const NUMBER_WIDTH = 10;
const PLACEHOLDER_TEXT = `[${Array(4).fill('0'.repeat(NUMBER_WIDTH)).join(' ')}]`;
const encoder = new TextEncoder();

export type ByteRange = [number, number, number, number];

export function byteRangePlaceholder(): PDFInvalidObject {
  return PDFInvalidObject.of(encoder.encode(PLACEHOLDER_TEXT));
}

export function contentsPlaceholder(hexLength: number): PDFHexString {
  return PDFHexString.of('0'.repeat(hexLength));
}

export interface SignatureSlots {
  /** Offset of `[` of the ByteRange placeholder. */
  byteRangeOffset: number;
  /** Offset of the first hex digit of /Contents, and the number of hex digits. */
  contentsOffset: number;
  contentsHexLength: number;
}

function indexOf(bytes: Uint8Array, needle: string, from: number, to: number): number {
  const n = encoder.encode(needle);
  outer: for (let i = from; i <= to - n.length; i++) {
    for (let j = 0; j < n.length; j++) if (bytes[i + j] !== n[j]) continue outer;
    return i;
  }
  return -1;
}

/** Finds both placeholders inside the serialised signature dictionary `[start, end)`. */
export function locateSignatureSlots(bytes: Uint8Array, start: number, end: number): SignatureSlots {
  const br = indexOf(bytes, `/ByteRange ${PLACEHOLDER_TEXT}`, start, end);
  const contents = indexOf(bytes, '/Contents <', start, end);
  if (br < 0 || contents < 0) throw new SigningError('signature dictionary placeholders not found');
  const contentsOffset = contents + '/Contents <'.length;
  let close = contentsOffset;
  while (close < end && bytes[close] === 0x30) close++;
  if (bytes[close] !== 0x3e) throw new SigningError('signature /Contents placeholder is not closed');
  return { byteRangeOffset: br + '/ByteRange '.length, contentsOffset, contentsHexLength: close - contentsOffset };
}

/** §12.8.1: everything but `<hex>`; the second piece runs to the end of the file. */
export function byteRangeFor(slots: SignatureSlots, totalLength: number): ByteRange {
  const gapStart = slots.contentsOffset - 1;
  const gapEnd = slots.contentsOffset + slots.contentsHexLength + 1;
  return [0, gapStart, gapEnd, totalLength - gapEnd];
}

/** Writes the ByteRange into its placeholder, space-padded inside the brackets. */
export function patchByteRange(bytes: Uint8Array, byteRangeOffset: number, range: ByteRange): void {
  const text = `[${range.join(' ')}`.padEnd(PLACEHOLDER_TEXT.length - 1, ' ') + ']';
  if (text.length !== PLACEHOLDER_TEXT.length) throw new SigningError('ByteRange does not fit its placeholder');
  bytes.set(encoder.encode(text), byteRangeOffset);
}

/** SHA-256 over the two pieces, fed in 1 MiB views: a large PDF is never copied or concatenated. */
export function digestByteRange(pdf: Uint8Array | readonly Uint8Array[], range: ByteRange): Uint8Array {
  // A document in parts (the input, then its update: prepare.ts preparePadesParts) is hashed as
  // the file they make, one after the other.
  const parts = pdf instanceof Uint8Array ? [pdf] : pdf;
  const hash = createHash('sha256');
  const chunk = 1 << 20;
  for (const [from, length] of [[range[0], range[1]], [range[2], range[3]]] as const) {
    let start = 0;
    for (const part of parts) {
      const lo = Math.max(from, start);
      const hi = Math.min(from + length, start + part.length);
      for (let p = lo; p < hi; p += chunk) hash.update(part.subarray(p - start, Math.min(hi, p + chunk) - start));
      start += part.length;
    }
  }
  return new Uint8Array(hash.digest());
}

/** Puts the DER CMS, hex-encoded and right-padded with zeros, into the /Contents placeholder. */
export function embedContents(pdf: Uint8Array, contentsOffset: number, hexLength: number, cms: Uint8Array): void {
  if (cms.length * 2 > hexLength) {
    throw new SigningError(`the CMS signature (${cms.length} bytes) does not fit the reserved /Contents (${hexLength / 2} bytes)`);
  }
  const hex = Buffer.from(cms).toString('hex').toUpperCase();
  pdf.set(encoder.encode(hex), contentsOffset);
  pdf.fill(0x30, contentsOffset + hex.length, contentsOffset + hexLength);
}
