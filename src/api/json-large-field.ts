import { Base64Bytes } from './base64-repair';

/**
 * Large documents arrive as one JSON string member (`pdf_base64`). Parsing the body the ordinary
 * way holds it three times at once (raw bytes, the body as text, the parsed string). This finds
 * that member's bytes in the raw body, when it is a string of base64 alphabet characters at the
 * top level of the object, and hands back the body without it for JSON.parse. Anything else
 * returns null and the caller parses normally, so behaviour, including every 422, stays that of
 * JSON.parse. The member is checked and decoded between turns of the event loop (Base64Bytes.of).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipWhitespace(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i += 1;
  return i;
}

/** End (index after the closing quote) of the string starting at b[i] === '"', or -1. */
function skipString(b: Buffer, i: number): number {
  // Native searches first (memchr): a 140 MB pdf_base64 took 0.4 s byte by byte (measured on a
  // 2-core machine). Only a string with a backslash before its closing quote needs the escape-aware
  // walk.
  const quote = b.indexOf(QUOTE, i + 1);
  if (quote < 0) return -1;
  const backslash = b.indexOf(BACKSLASH, i + 1);
  if (backslash < 0 || backslash > quote) return quote + 1;
  for (let j = backslash; j < b.length; j += 1) {
    if (b[j] === BACKSLASH) j += 1;
    else if (b[j] === QUOTE) return j + 1;
  }
  return -1;
}

/** End of any JSON value starting at b[i], or -1; containers are skipped string-aware. */
function skipValue(b: Buffer, i: number): number {
  if (b[i] === QUOTE) return skipString(b, i);
  if (b[i] === 0x7b || b[i] === 0x5b) {
    let depth = 0;
    for (let j = i; j < b.length; j += 1) {
      const c = b[j];
      if (c === QUOTE) {
        j = skipString(b, j) - 1;
        if (j < 0) return -1;
      } else if (c === 0x7b || c === 0x5b) depth += 1;
      else if (c === 0x7d || c === 0x5d) {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < b.length && b[j] !== 0x2c && b[j] !== 0x7d && b[j] !== 0x20 && b[j] !== 0x0a && b[j] !== 0x0d && b[j] !== 0x09) j += 1;
  return j > i ? j : -1;
}

/**
 * `value` is the member's bytes (a view of `raw`, not a copy), when they are base64 alphabet
 * characters only: then no escape or control character can be among them, and the bytes are the
 * string JSON.parse would have made. Anything else (a wrapped or escaped value) goes to JSON.parse.
 */
export async function splitLargeStringField(raw: Buffer, name: string): Promise<{ rest: Buffer; value: Base64Bytes } | null> {
  let i = skipWhitespace(raw, 0);
  if (raw[i] !== 0x7b) return null;
  i += 1;
  let found: { start: number; end: number; value: Base64Bytes } | null = null;
  for (;;) {
    i = skipWhitespace(raw, i);
    if (raw[i] === 0x7d) break;
    if (raw[i] !== QUOTE) return null;
    const keyEnd = skipString(raw, i);
    if (keyEnd < 0) return null;
    let key: string;
    try {
      key = JSON.parse(raw.subarray(i, keyEnd).toString('utf8')) as string;
    } catch {
      return null;
    }
    i = skipWhitespace(raw, keyEnd);
    if (raw[i] !== 0x3a) return null;
    i = skipWhitespace(raw, i + 1);
    const valueEnd = skipValue(raw, i);
    if (valueEnd < 0) return null;
    if (key === name) {
      // A repeated member, a non-string or an escape inside: leave it all to JSON.parse.
      if (found || raw[i] !== QUOTE) return null;
      const value = await Base64Bytes.of(raw.subarray(i + 1, valueEnd - 1));
      if (!value) return null;
      found = { start: i + 1, end: valueEnd - 1, value };
    }
    i = skipWhitespace(raw, valueEnd);
    if (raw[i] === 0x2c) i += 1;
    else if (raw[i] !== 0x7d) return null;
  }
  if (!found || skipWhitespace(raw, i + 1) !== raw.length) return null;
  return {
    rest: Buffer.concat([raw.subarray(0, found.start), raw.subarray(found.end)]),
    value: found.value,
  };
}
