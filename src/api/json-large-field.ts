/**
 * Large documents arrive as one JSON string member (`pdf_base64`). Parsing the body the ordinary
 * way holds it three times at once (raw bytes, the body as text, the parsed string). This finds
 * that member's bytes in the raw body, when it is a plain string at the top level of the object
 * with no escape sequences (base64 needs none), and hands back the body without it for
 * JSON.parse. Anything else returns null and the caller parses normally, so behaviour, including
 * every 422, stays that of JSON.parse.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipWhitespace(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i += 1;
  return i;
}

/** End (index after the closing quote) of the string starting at b[i] === '"', or -1. */
function skipString(b: Buffer, i: number): number {
  // Native searches first (memchr): a 140 MB pdf_base64 took 0.4 s byte by byte here. Only a
  // string with a backslash before its closing quote needs the escape-aware walk.
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
 * No escapes and no raw control characters (RFC 8259 §7 forbids them unescaped): then the bytes
 * are the string, and JSON.parse would have accepted it. A backslash is a native search; the
 * control characters are one native regular expression over the latin1 text, which the caller
 * makes anyway (a byte loop took 0.3 s over 140 MB).
 */
function isPlainString(b: Buffer, from: number, to: number): string | null {
  const backslash = b.indexOf(BACKSLASH, from);
  if (backslash >= 0 && backslash < to) return null;
  const text = b.toString('latin1', from, to);
  return CONTROL.test(text) ? null : text;
}
const CONTROL = /[\u0000-\u001f]/;

/**
 * `value` is the member's text (latin1: one character per byte, so a non-ASCII byte stays outside
 * the base64 alphabet and is refused there as before).
 */
export function splitLargeStringField(raw: Buffer, name: string): { rest: Buffer; value: string } | null {
  let i = skipWhitespace(raw, 0);
  if (raw[i] !== 0x7b) return null;
  i += 1;
  let found: { start: number; end: number; text: string } | null = null;
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
      const text = isPlainString(raw, i + 1, valueEnd - 1);
      if (text === null) return null;
      found = { start: i + 1, end: valueEnd - 1, text };
    }
    i = skipWhitespace(raw, valueEnd);
    if (raw[i] === 0x2c) i += 1;
    else if (raw[i] !== 0x7d) return null;
  }
  if (!found || skipWhitespace(raw, i + 1) !== raw.length) return null;
  return {
    rest: Buffer.concat([raw.subarray(0, found.start), raw.subarray(found.end)]),
    value: found.text,
  };
}
