import { InvalidInputError, PdfInputError } from '../domain/errors';
import { notAPdf, PDF_HEADER, PREVIEW_BYTES, previewBytes, requirePdfHeader, startsWithAscii } from '../signing/validation';

/**
 * Spec §7 "Tolerance for pdf_base64": repair an encoding only when one reading is possible, then
 * insist on `%PDF-` at byte 0 (CONTRACT: junk before the header is refused). One pass over the
 * input validates the alphabet and the line layout; Node's decoder (lenient by itself: it skips
 * CR/LF and reads `-`/`_`) runs only on text that pass has proven well-formed, so 100+ MB inputs
 * cost one scan and one decoded copy, with no regex and no cleaned-up intermediate string.
 *
 * The rules only: what a value is, which repairs apply, and the exact message of each refusal.
 * No file is written here; a large field that goes straight to a file is base64-to-file.ts's.
 */

export type Base64Repair = 'data-uri-prefix' | 'line-breaks' | 'padding' | 'url-safe-alphabet' | 'double-encoded';

const DATA_URI_PREFIX = 'data:application/pdf;base64,';
/** Spec §8: base64 line width tolerated for repair; 76 is MIME's (RFC 2045 §6.8), PEM's 64 fits. */
const MAX_LINE_WIDTH = 76;
/** base64("%PDF-") begins with these 7 characters in both alphabets: the double-encoding gate. */
const PDF_HEADER_B64 = 'JVBERi0';
const LAYOUT_RULE =
  'line breaks are repaired only when every line but the last has the same width, at most 76 characters, with LF or CRLF';

/** Character classes for the one-pass scan (plain numbers: a table lookup per character). */
const C = {
  Invalid: 0,
  Data: 1, // A-Z a-z 0-9
  Std: 2, // + /
  Url: 3, // - _
  Pad: 4, // =
  Lf: 5,
  Cr: 6,
  Space: 7, // space, tab, VT, FF: never part of a layout we repair
} as const;

const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9]/.test(ch)) CLASS[c] = C.Data;
}
CLASS[0x2b] = CLASS[0x2f] = C.Std;
CLASS[0x2d] = CLASS[0x5f] = C.Url;
CLASS[0x3d] = C.Pad;
CLASS[0x0a] = C.Lf;
CLASS[0x0d] = C.Cr;
CLASS[0x20] = CLASS[0x09] = CLASS[0x0b] = CLASS[0x0c] = C.Space;

function describeChar(code: number): string {
  if (code > 0x20 && code < 0x7f) return JSON.stringify(String.fromCharCode(code));
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The raw text as it arrived over the wire (UTF-8), first 16 bytes. */
function previewText(text: string, start: number): string {
  return previewBytes(new TextEncoder().encode(text.slice(start, start + PREVIEW_BYTES)));
}

/**
 * Spec §7 rule 2: every refusal of a non-PDF states the first bytes received and the expected
 * `%PDF-` start, whatever the specific reason (bad alphabet, layout, padding, emptiness).
 */
function received(preview: string): string {
  return `(received "${preview}"; expected base64 of a PDF, whose bytes start with "${PDF_HEADER}")`;
}

interface Decoded {
  bytes: Uint8Array;
  repairs: Base64Repair[];
}

/** Any character that canonical standard base64 (RFC 4648 §4, unwrapped) cannot hold. */
const NOT_CANONICAL = /[^A-Za-z0-9+/=]/g;

/** Padding at `pad` (first '=') of a text of `length` ending in `lastIsPad`: only its last one or two. */
function paddingAtEnd(pad: number, start: number, length: number, lastIsPad: boolean): boolean {
  if (pad < 0) return true;
  if (pad === start) return false; // nothing but padding: the walk says there is no data
  return pad === length - 1 || (pad === length - 2 && lastIsPad);
}

/**
 * Canonical input (standard alphabet, no line breaks, complete padding only at the end) needs no
 * repair and no layout check: native searches prove it in about 0.1 s for 140 MB, where the
 * character walk below took 0.9 s (measured on a 2-core machine). Anything else takes the walk,
 * which names what is wrong or repaired.
 */
function decodeCanonical(text: string, start: number): Decoded | null {
  const length = text.length - start;
  if (length === 0 || length % 4 !== 0) return null;
  NOT_CANONICAL.lastIndex = start;
  if (NOT_CANONICAL.test(text)) return null;
  if (!paddingAtEnd(text.indexOf('=', start), start, text.length, text.charCodeAt(text.length - 1) === 0x3d)) return null;
  const buf = Buffer.from(start === 0 ? text : text.slice(start), 'base64');
  return { bytes: new Uint8Array(buf.buffer, buf.byteOffset, buf.length), repairs: [] };
}

/**
 * A multiple of 4: chunks split between base64 quanta. 1 MiB: a few milliseconds of work each, with
 * a turn of the event loop between them (nextTurn), so a 140 MB field never holds /health up.
 */
const CHUNK_CHARS = 1024 * 1024;

/** Latin1 text of `b`, CHUNK_CHARS characters at a time (never a string of all of it). */
export function* chunksOf(b: Uint8Array): Generator<{ off: number; text: string }> {
  for (let off = 0; off < b.length; off += CHUNK_CHARS) {
    yield { off, text: Buffer.from(b.buffer, b.byteOffset + off, Math.min(CHUNK_CHARS, b.length - off)).toString('latin1') };
  }
}

/**
 * Lets the event loop run (timers, other requests' I/O, /health) between two chunks of a large
 * field: checking and decoding 140 MB in one go held the loop for 0.65 to 0.75 s (measured on a
 * 2-core machine, /health polled from another process).
 */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A pdf_base64 too large to be worth a JavaScript string: the bytes of its JSON string, known to
 * hold base64 alphabet characters only (so also no JSON escape and no control character: the bytes
 * are the string). Checked at parse (`of`), decoded when the document is wanted (`decodePdfField`,
 * after the request's other checks, or into a file: base64-to-file.ts), both a chunk at a time; a
 * string of the whole text (140 MB for a 100 MB document) is never made.
 */
export class Base64Bytes {
  /** The decoding when the bytes are canonical base64 (else null); undefined until `decode`. */
  private decoded: Uint8Array | null | undefined;

  private constructor(readonly bytes: Uint8Array) {}

  /** `bytes` as Base64Bytes when every one is in the base64 alphabet (or '='), else null. */
  static async of(bytes: Uint8Array): Promise<Base64Bytes | null> {
    for (const { text } of chunksOf(bytes)) {
      NOT_CANONICAL.lastIndex = 0;
      if (NOT_CANONICAL.test(text)) return null;
      await nextTurn();
    }
    return new Base64Bytes(bytes);
  }

  /** Decodes the canonical form once, between turns of the event loop; `canonical` reads it. */
  async decode(): Promise<this> {
    if (this.decoded === undefined) this.decoded = await decodeCanonicalBytes(this.bytes);
    return this;
  }

  get canonical(): Uint8Array | null {
    if (this.decoded === undefined) throw new Error('Base64Bytes.decode() must run before canonical is read');
    return this.decoded;
  }
}

/** Bytes of the base64 alphabet whose length and padding are canonical (decodeCanonical's test, for bytes). */
function canonicalLength(b: Uint8Array): boolean {
  if (b.length === 0 || b.length % 4 !== 0) return false;
  return paddingAtEnd(Buffer.from(b.buffer, b.byteOffset, b.byteLength).indexOf(0x3d), 0, b.length, b[b.length - 1] === 0x3d);
}

/**
 * Bytes of the base64 alphabet that are canonical base64 of a PDF, as far as their first eight
 * characters tell: such a field needs no repair, and its decoding may go straight to a file.
 */
export function isCanonicalPdf(b: Uint8Array): boolean {
  if (!canonicalLength(b)) return false;
  return startsWithAscii(Buffer.from(Buffer.from(b.buffer, b.byteOffset, Math.min(8, b.length)).toString('latin1'), 'base64'), PDF_HEADER);
}

/** decodeCanonical over bytes of the base64 alphabet: length and padding, then chunk by chunk. */
async function decodeCanonicalBytes(b: Uint8Array): Promise<Uint8Array | null> {
  if (!canonicalLength(b)) return null;
  const out = Buffer.allocUnsafe((b.length / 4) * 3);
  let written = 0;
  for (const { text } of chunksOf(b)) {
    written += out.write(text, written, 'base64');
    await nextTurn();
  }
  return out.subarray(0, written);
}

/** Validates `text[start..]` as base64 with the tolerated layout, then decodes it. */
function decodeLayer(text: string, start: number): Decoded {
  const canonical = decodeCanonical(text, start);
  if (canonical) return canonical;
  let pad = 0;
  let firstPadAt = -1;
  let notData = 0; // characters that are not alphabet characters (padding, line breaks, whitespace)
  let std = false;
  let url = false;
  let refusal: string | null = null;
  // Line layout: width of line 1, length of the last completed line, where the current line began.
  let width = -1;
  let prevLen = -1;
  let lineStart = start;
  let breaks = 0;
  let eol = 0; // 1: LF, 2: CRLF
  const end = text.length;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    const k = code < 128 ? CLASS[code]! : C.Invalid;
    if (k === C.Data) continue; // the hot path: nothing to record for A-Z a-z 0-9
    if (k === C.Std) std = true;
    else if (k === C.Url) url = true;
    else if (k === C.Pad) {
      if (pad++ === 0) firstPadAt = i;
      notData++;
    } else if (k === C.Lf || k === C.Cr) {
      const lineLen = i - lineStart;
      let kind = 1;
      if (k === C.Cr) {
        if (text.charCodeAt(i + 1) !== 0x0a) {
          refusal ??= `pdf_base64 has a CR without LF at index ${i}; ${LAYOUT_RULE}`;
          notData++;
          continue;
        }
        kind = 2;
        i++;
      }
      notData += kind;
      lineStart = i + 1;
      if (eol === 0) eol = kind;
      else if (eol !== kind) refusal ??= `pdf_base64 mixes LF and CRLF line breaks; ${LAYOUT_RULE}`;
      breaks++;
      if (lineLen === 0) refusal ??= `pdf_base64 has an empty line (line ${breaks}); ${LAYOUT_RULE}`;
      else if (breaks === 1) width = lineLen;
      else if (prevLen !== width) {
        refusal ??= `pdf_base64 has lines of uneven width (line ${breaks - 1} has ${prevLen} characters, line 1 has ${width}); ${LAYOUT_RULE}`;
      }
      prevLen = lineLen;
    } else if (k === C.Space) {
      refusal ??= `pdf_base64 contains whitespace (${describeChar(code)} at index ${i}); ${LAYOUT_RULE}, and no other whitespace is`;
      notData++;
    } else {
      // Outside the alphabet: this is not base64 at all, so show what the text itself starts with.
      // Every character before it is ASCII, so its index is also its byte offset.
      if (i - start < PREVIEW_BYTES) throw notAPdf(previewText(text, start));
      throw new PdfInputError(`pdf_base64 is not valid base64: ${describeChar(code)} at index ${i} is outside the base64 alphabet ${received(previewText(text, start))}`);
    }
  }
  const lineLen = end - lineStart;
  const data = end - start - notData;
  if (breaks > 0 && refusal === null) refusal = checkLastLines(breaks, width, prevLen, lineLen);
  if (std && url) {
    refusal ??= 'pdf_base64 mixes the standard (+ /) and URL-safe (- _) base64 alphabets; translating it would be a guess';
  }
  if (data === 0 && refusal === null) throw new PdfInputError(`pdf_base64 holds no base64 data ${received(previewText(text, start))}`);
  const padThenDataAt = firstPadAt < 0 || refusal !== null ? -1 : indexOfDataAfter(text, firstPadAt);
  if (padThenDataAt >= 0) {
    refusal = `pdf_base64 has "=" padding inside the data (a base64 character follows it at index ${padThenDataAt}); padding may only end it`;
  }
  const padding = refusal === null ? checkPadding(data, pad) : true;
  // Spec §7 rule 2: a refusal states the first bytes received; here that is the text itself.
  if (typeof padding === 'string') refusal = padding;
  if (refusal !== null) throw new PdfInputError(`${refusal} ${received(previewText(text, start))}`);
  const repairs: Base64Repair[] = [];
  if (breaks > 0) repairs.push('line-breaks');
  if (padding) repairs.push('padding');
  if (url) repairs.push('url-safe-alphabet');
  // Proven well-formed above, so Node's lenient decoder reads exactly what we validated.
  const buf = Buffer.from(start === 0 ? text : text.slice(start), 'base64');
  return { bytes: new Uint8Array(buf.buffer, buf.byteOffset, buf.length), repairs };
}

/** First alphabet character after `from` (RFC 4648 §3.2: padding only ends the data), or -1. */
function indexOfDataAfter(text: string, from: number): number {
  for (let i = from + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const k = code < 128 ? CLASS[code]! : C.Invalid;
    if (k === C.Data || k === C.Std || k === C.Url) return i;
  }
  return -1;
}

/** The last line may be shorter than the rest, never longer; one unwrapped line may end in a newline. */
function checkLastLines(breaks: number, width: number, prevLen: number, lineLen: number): string | null {
  const lastIsOpen = lineLen > 0; // text after the final line break
  const lastLen = lastIsOpen ? lineLen : prevLen;
  if (!lastIsOpen && breaks === 1) return null; // a single line and its trailing newline
  if (lastIsOpen && prevLen !== width) {
    return `pdf_base64 has lines of uneven width (line ${breaks} has ${prevLen} characters, line 1 has ${width}); ${LAYOUT_RULE}`;
  }
  if (width > MAX_LINE_WIDTH) {
    return `pdf_base64 is wrapped at ${width} characters, wider than ${MAX_LINE_WIDTH}; ${LAYOUT_RULE}`;
  }
  if (lastLen > width) {
    const n = lastIsOpen ? breaks + 1 : breaks;
    return `pdf_base64 has a last line longer than the others (line ${n} has ${lastLen} characters, line 1 has ${width}); ${LAYOUT_RULE}`;
  }
  return null;
}

/** RFC 4648 §4: 4n characters, or 4n+2 / 4n+3 completed by "==" / "=". true: '=' were missing; string: refused. */
function checkPadding(data: number, pad: number): boolean | string {
  const rem = data % 4;
  if (rem === 1) {
    return `pdf_base64 is not valid base64: ${data} base64 characters leave one character over (length ≡ 1 mod 4), which no padding completes`;
  }
  const expected = rem === 0 ? 0 : 4 - rem;
  if (pad > expected) return `pdf_base64 ends with ${pad} "=" after ${data} base64 characters where ${expected} belong`;
  return pad < expected;
}

/** The request field as the routes have it: a large field (Base64Bytes) decoded first, then decodePdfBase64. */
export async function decodePdfField(field: unknown): Promise<{ pdf: Uint8Array; repairs: Base64Repair[] }> {
  return decodePdfBase64(field instanceof Base64Bytes ? await field.decode() : field);
}

/**
 * Decodes the `pdf_base64` request field under the tolerance rules. `repairs` names each repair
 * applied (the service logs one warning listing them). Throws InvalidInputError for a non-string
 * and PdfInputError for anything that does not decode to bytes starting with `%PDF-`.
 */
export function decodePdfBase64(field: unknown): { pdf: Uint8Array; repairs: Base64Repair[] } {
  let input = field;
  if (input instanceof Base64Bytes) {
    const direct = input.canonical;
    if (direct && startsWithAscii(direct, PDF_HEADER)) return { pdf: direct, repairs: [] };
    // Anything else (wrapped, unpadded, encoded twice, not a PDF) takes the text path below,
    // whose messages name what is repaired or wrong.
    input = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength).toString('latin1');
  }
  if (typeof input !== 'string') {
    const got = input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input;
    throw new InvalidInputError(`pdf_base64 must be a string of base64, got ${got}`);
  }
  if (input.length === 0) throw new PdfInputError(`pdf_base64 is empty ${received('')}`);
  const repairs: Base64Repair[] = [];
  let start = 0;
  if (input.length >= DATA_URI_PREFIX.length && input.slice(0, DATA_URI_PREFIX.length).toLowerCase() === DATA_URI_PREFIX) {
    start = DATA_URI_PREFIX.length; // RFC 2397: scheme and media type are case-insensitive
    repairs.push('data-uri-prefix');
  }
  if (input.startsWith(PDF_HEADER, start)) {
    throw new PdfInputError(
      `pdf_base64 holds a raw PDF, not base64: it starts with "${previewText(input, start)}"; send the file base64-encoded (expected base64 of a PDF, whose bytes start with "${PDF_HEADER}")`,
    );
  }
  const outer = decodeLayer(input, start);
  repairs.push(...outer.repairs);
  let pdf = outer.bytes;
  if (!startsWithAscii(pdf, PDF_HEADER) && startsWithAscii(pdf, PDF_HEADER_B64)) {
    // Encoded twice: the first layer is text that is itself base64 of a PDF. latin1 maps each byte
    // to one char, so a non-ASCII byte stays outside the alphabet and fails the inner scan.
    let inner: Decoded;
    try {
      inner = decodeLayer(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.length).toString('latin1'), 0);
    } catch (cause) {
      throw notAPdf(previewBytes(pdf), '; it looks base64-encoded twice, but the inner layer is not valid base64', cause);
    }
    pdf = inner.bytes;
    repairs.push('double-encoded');
    for (const r of inner.repairs) if (!repairs.includes(r)) repairs.push(r);
  }
  requirePdfHeader(pdf);
  return { pdf, repairs };
}
