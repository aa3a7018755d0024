/**
 * Parses single PDF objects out of the input bytes at known offsets, without loading the whole
 * document (a 100 MB PDF must not be parsed object by object: we only ever need the trailer chain,
 * the catalog, a page, the AcroForm and the object streams holding them).
 * pdf-lib's PDFObjectParser does the object syntax (ISO 32000-1 §7.3); we add the indirect-object
 * header `N G obj` (§7.3.10) ourselves so an offset that does not point at the expected object is
 * reported instead of silently read, and read every token whose length the document chooses
 * (strings, names, numbers) by finding its end and slicing the bytes once: pdf-lib appends one
 * character at a time, and a 50 MB hex string in a catalog needed 2.95 GB.
 */
import { PDFContext, PDFHexString, PDFName, PDFObject, PDFObjectParser, PDFString } from 'pdf-lib';
import { tooComplex } from './limits';

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);

export function isPdfWhitespace(byte: number | undefined): boolean {
  return byte !== undefined && WHITESPACE.has(byte);
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

/** Skips whitespace and `%` comments (§7.2.3, §7.2.4). */
export function skipWhitespace(bytes: Uint8Array, pos: number): number {
  let p = pos;
  while (p < bytes.length) {
    const b = bytes[p];
    if (isPdfWhitespace(b)) {
      p++;
    } else if (b === 0x25) {
      while (p < bytes.length && bytes[p] !== 0x0a && bytes[p] !== 0x0d) p++;
    } else {
      break;
    }
  }
  return p;
}

/** Reads an unsigned decimal integer at `pos`; null when there is none. */
export function readUnsigned(bytes: Uint8Array, pos: number): { value: number; end: number } | null {
  let p = pos;
  let value = 0;
  while (isDigit(bytes[p])) {
    value = value * 10 + (bytes[p]! - 0x30);
    p++;
  }
  return p === pos ? null : { value, end: p };
}

/** True when `keyword` is at `pos` followed by a delimiter, whitespace or EOF. */
export function matchKeyword(bytes: Uint8Array, pos: number, keyword: string): boolean {
  for (let i = 0; i < keyword.length; i++) {
    if (bytes[pos + i] !== keyword.charCodeAt(i)) return false;
  }
  const after = bytes[pos + keyword.length];
  return after === undefined || !(isDigit(after) || (after >= 0x41 && after <= 0x7a));
}

export interface IndirectObject {
  objectNumber: number;
  generation: number;
  object: PDFObject;
  /** Offset just after the object's body (and any white space pdf-lib read past it), before `endobj`. */
  end: number;
}

/** Reads the `N G obj` header at `offset` (leading whitespace allowed); null if not there. */
export function readObjectHeader(
  bytes: Uint8Array,
  offset: number,
): { objectNumber: number; generation: number; bodyStart: number } | null {
  let p = skipWhitespace(bytes, offset);
  const num = readUnsigned(bytes, p);
  if (!num || !isPdfWhitespace(bytes[num.end])) return null;
  p = skipWhitespace(bytes, num.end);
  const gen = readUnsigned(bytes, p);
  if (!gen) return null;
  p = skipWhitespace(bytes, gen.end);
  if (!matchKeyword(bytes, p, 'obj')) return null;
  return { objectNumber: num.value, generation: gen.value, bodyStart: p + 3 };
}

type ByteStream = ConstructorParameters<typeof PDFObjectParser>[0];

/**
 * The longest name read. ISO 32000-1 Annex C (Table C.1) puts 127 bytes as the limit writers keep
 * to; pdf-lib encodes a name one character at a time and keeps every name for the life of the
 * process (PDFName.of interns them), so a longer one is refused rather than carried.
 */
export const MAX_NAME_BYTES = 4_096;

/**
 * The longest string read, raw (hex digits or escaped text). ISO 32000-1 Annex C sets no limit
 * outside content streams, but a string is held whole in the worker's heap (a 200 MB hex string in
 * a catalog took the worker past 670 MB): beyond the largest stream we decode (64 MiB,
 * _stream-decode.ts) it is refused. Signature /Contents, the largest real strings, are well under
 * a MiB even with embedded revocation data.
 */
export const MAX_STRING_BYTES = 64 * 1024 * 1024;

/**
 * The most objects (every number, name, string, array and dictionary, nested ones included) read
 * from one document. Signing reads a few; validation's change analysis walks the whole document
 * once (a 10,000-page document is about 1.5 million), never more: an array of 10 million numbers
 * (20 MB) took a PDF worker to its heap limit in 7 s, where this refuses it in about a second
 * (measured on a 2-core machine), its objects well inside the worker's heap.
 */
export const MAX_PARSED_OBJECTS = 2_000_000;
/** What is left of each document's MAX_PARSED_OBJECTS, by the contexts its readers parse into. */
const OBJECTS_LEFT = new WeakMap<PDFContext, { left: number }>();

/** Objects parsed into `context` count against `budget` (the readers of one document share one). */
export function countParsedObjects(context: PDFContext, budget: { left: number }): void {
  OBJECTS_LEFT.set(context, budget);
}

export function newObjectBudget(): { left: number } {
  return { left: MAX_PARSED_OBJECTS };
}

/** §7.2.2 Table 2 delimiters and Table 1 white space: what ends a name or a number. */
const ENDS_TOKEN = new Uint8Array(256);
for (const b of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) ENDS_TOKEN[b] = 1;

function isNumeric(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || byte === 0x2e || byte === 0x2b || byte === 0x2d);
}

/**
 * pdf-lib's object parser with the variable-length tokens read by slicing: the same objects
 * (PDFString and PDFHexString hold the raw text between the delimiters, escapes and white space
 * kept, as pdf-lib's own do), in time and memory linear in their length.
 */
class SlicingObjectParser extends PDFObjectParser {
  constructor(
    stream: ByteStream,
    private readonly source: Uint8Array,
    context: PDFContext,
    /** Where `source` starts in the file: messages name file offsets. */
    private readonly base: number,
  ) {
    super(stream, context);
  }

  static over(bytes: Uint8Array, context: PDFContext, base = 0): SlicingObjectParser {
    // ByteStream is not among pdf-lib's exports: take the one its own factory makes.
    const stream = (PDFObjectParser.forBytes(bytes, context) as unknown as { bytes: ByteStream }).bytes;
    return new SlicingObjectParser(stream, bytes, context, base);
  }

  /** Every object, nested ones included, is counted against its document's budget. */
  override parseObject(): PDFObject {
    const budget = OBJECTS_LEFT.get(this.context);
    if (budget && --budget.left < 0) throw tooComplex(`more than ${MAX_PARSED_OBJECTS} objects to read (at byte ${this.base + this.bytes.offset()})`);
    return super.parseObject();
  }

  /** Offset after the last object parsed. */
  position(): number {
    return this.bytes.offset();
  }

  /** §7.3.4.3: everything up to the first `>`, as pdf-lib keeps it. */
  protected override parseHexString(): PDFHexString {
    this.bytes.assertNext(0x3c);
    const start = this.bytes.offset();
    const close = this.source.indexOf(0x3e, start);
    const length = (close < 0 ? this.source.length : close) - start;
    if (length > MAX_STRING_BYTES) throw tooComplex(`a hex string of ${length} bytes at byte ${this.base + start - 1} (at most ${MAX_STRING_BYTES})`);
    this.bytes.moveTo(close < 0 ? this.source.length : close);
    this.bytes.assertNext(0x3e);
    return PDFHexString.of(latin1(this.source, start, close));
  }

  /**
   * §7.3.4.2: balanced unescaped parentheses; a backslash escapes the byte after it (so `\\`
   * escapes nothing further). pdf-lib's rule, byte for byte, with one slice at the end.
   */
  protected override parseString(): PDFString {
    const b = this.source;
    const start = this.bytes.offset();
    let depth = 0;
    let escaped = false;
    const end = Math.min(b.length, start + MAX_STRING_BYTES + 2);
    for (let p = start; p < end; p++) {
      const byte = b[p]!;
      if (!escaped) {
        if (byte === 0x28) depth++;
        else if (byte === 0x29) depth--;
      }
      escaped = byte === 0x5c ? !escaped : false;
      if (depth === 0) {
        this.bytes.moveTo(p + 1);
        return PDFString.of(latin1(b, start + 1, p));
      }
    }
    if (end < b.length) throw tooComplex(`a literal string of more than ${MAX_STRING_BYTES} bytes at byte ${this.base + start}`);
    this.bytes.moveTo(b.length);
    throw new Error(`unbalanced parentheses in the literal string at byte ${this.base + start}`);
  }

  /** §7.3.5: up to white space or a delimiter; PDFName.of undoes the #xx escapes. */
  protected override parseName(): PDFName {
    this.bytes.assertNext(0x2f);
    const start = this.bytes.offset();
    let p = start;
    while (p < this.source.length && !ENDS_TOKEN[this.source[p]!]) p++;
    if (p - start > MAX_NAME_BYTES) throw tooComplex(`a name of ${p - start} bytes at byte ${this.base + start - 1} (at most ${MAX_NAME_BYTES})`);
    this.bytes.moveTo(p);
    return PDFName.of(latin1(this.source, start, p));
  }

  /** §7.3.3: sign, digits and one point, then digits; pdf-lib's grammar, without its warning on the console. */
  protected override parseRawNumber(): number {
    const b = this.source;
    const start = this.bytes.offset();
    let p = start;
    while (p < b.length && isNumeric(b[p])) {
      if (b[p++] === 0x2e) break;
    }
    while (p < b.length && b[p]! >= 0x30 && b[p]! <= 0x39) p++;
    this.bytes.moveTo(p);
    const text = latin1(b, start, p);
    const value = Number(text);
    if (!text || !Number.isFinite(value)) throw new Error(`malformed number at byte ${this.base + start}`);
    return value;
  }
}

/** Parses one direct object (dict, array, stream, …) starting at `pos`. */
export function parseObjectAt(bytes: Uint8Array, pos: number, context: PDFContext): PDFObject {
  return parseObjectSpan(bytes, pos, context).object;
}

/** parseObjectAt, with the offset in `bytes` where the object ends. */
export function parseObjectSpan(bytes: Uint8Array, pos: number, context: PDFContext): { object: PDFObject; end: number } {
  const parser = SlicingObjectParser.over(bytes.subarray(pos), context, pos);
  const object = parser.parseObject();
  return { object, end: pos + parser.position() };
}

/**
 * Parses the indirect object at `offset`; returns null when no `N G obj` header is there, so the
 * caller can report the broken cross-reference entry (CONTRACT: never guess offsets).
 */
export function parseIndirectObjectAt(
  bytes: Uint8Array,
  offset: number,
  context: PDFContext,
): IndirectObject | null {
  const header = readObjectHeader(bytes, offset);
  if (!header) return null;
  const { object, end } = parseObjectSpan(bytes, header.bodyStart, context);
  return { objectNumber: header.objectNumber, generation: header.generation, object, end };
}

/** Latin-1 text of a byte range (one byte, one character), made in one step. */
export function latin1(bytes: Uint8Array, start: number, end: number): string {
  const from = Math.max(0, start);
  const to = Math.min(end, bytes.length);
  if (to <= from) return '';
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('latin1');
}
