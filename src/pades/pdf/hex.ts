/**
 * Hexadecimal strings as bytes (ISO 32000-1 §7.3.4.3): one pass over the digits into one buffer,
 * white space skipped, an odd final digit followed by 0. Linear whatever the size: a signature's
 * /Contents or a content stream's string is the document's to size.
 */

/** Digit values; 0xfe for PDF white space (§7.2.2 Table 1), 0xff for any other byte. */
const VALUE = new Uint8Array(256).fill(0xff);
for (let i = 0; i < 10; i++) VALUE[0x30 + i] = i;
for (let i = 0; i < 6; i++) VALUE[0x41 + i] = VALUE[0x61 + i] = 10 + i;
for (const b of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) VALUE[b] = 0xfe;

/**
 * The bytes the digits of `bytes[start, end)` spell. Any other byte ends it with null, or with
 * `lenient` is skipped as white space is (what content-stream readers do).
 */
export function decodeHexDigits(bytes: Uint8Array, start: number, end: number, lenient = false): Uint8Array | null {
  const out = new Uint8Array(Math.ceil(Math.max(0, end - start) / 2));
  let n = 0;
  let high = -1;
  for (let p = start; p < end; p++) {
    const v = VALUE[bytes[p]!]!;
    if (v >= 0xfe) {
      if (v === 0xff && !lenient) return null;
      continue;
    }
    if (high < 0) {
      high = v;
    } else {
      out[n++] = high * 16 + v;
      high = -1;
    }
  }
  if (high >= 0) out[n++] = high * 16;
  return out.subarray(0, n);
}
