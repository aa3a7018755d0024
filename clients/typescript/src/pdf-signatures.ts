import { bytesOfHex } from './hex.js';

/**
 * The signatures of a PDF as bytes, without a PDF parser: each `/ByteRange [0 b c d]` whose gap
 * [b, c) is exactly the hex string `<…>` of a signature dictionary's /Contents (ISO 32000-1
 * §12.8.1: the byte range covers the whole file but the /Contents string). A signature dictionary
 * is never in an object stream (its offsets are byte offsets of the file), so every one is found by
 * this scan. A /ByteRange that is not that shape (a name in a content stream, a damaged one) is
 * passed over: it can only stand for a signature whose covered bytes and CMS check out anyway.
 */
export interface PdfSignature {
  byteRange: [number, number, number, number];
  /** Offset of the `/ByteRange` name. */
  at: number;
  /** /Contents decoded: the DER CMS, then the zero padding the signer reserved. */
  contents: Uint8Array;
}

const NAME = new TextEncoder().encode('/ByteRange');
const isWhite = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;

export function findSignatures(pdf: Uint8Array): PdfSignature[] {
  const out: PdfSignature[] = [];
  for (let at = pdf.indexOf(0x2f); at >= 0; at = pdf.indexOf(0x2f, at + 1)) {
    if (!startsWith(pdf, at, NAME)) continue;
    const range = readRange(pdf, at + NAME.length);
    const contents = range && gapContents(pdf, range);
    if (range && contents) out.push({ byteRange: range, at, contents });
  }
  return out;
}

function startsWith(buf: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at + word.length > buf.length) return false;
  for (let i = 0; i < word.length; i += 1) if (buf[at + i] !== word[i]) return false;
  return true;
}

/** `[a b c d]` of non-negative integers after optional white space; null otherwise. */
function readRange(pdf: Uint8Array, from: number): [number, number, number, number] | null {
  let at = from;
  while (isWhite(pdf[at])) at += 1;
  if (pdf[at] !== 0x5b) return null; // [
  at += 1;
  const values: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    while (isWhite(pdf[at])) at += 1;
    let value = 0;
    let digits = 0;
    for (; pdf[at]! >= 0x30 && pdf[at]! <= 0x39 && digits < 16; at += 1, digits += 1) value = value * 10 + pdf[at]! - 0x30;
    if (digits === 0 || digits === 16) return null;
    values.push(value);
  }
  while (isWhite(pdf[at])) at += 1;
  return pdf[at] === 0x5d ? (values as [number, number, number, number]) : null; // ]
}

/** The /Contents the gap of `[0 b c d]` holds, decoded; null unless it is exactly `<hex>` within the file. */
function gapContents(pdf: Uint8Array, [a, b, c, d]: [number, number, number, number]): Uint8Array | null {
  if (a !== 0 || b <= 0 || c < b + 2 || c + d > pdf.length) return null;
  if (pdf[b] !== 0x3c || pdf[c - 1] !== 0x3e) return null; // < … >
  const hex = new TextDecoder('latin1').decode(pdf.subarray(b + 1, c - 1));
  return bytesOfHex(hex);
}
