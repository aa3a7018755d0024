/**
 * Parses single PDF objects out of the input bytes at known offsets, without loading the whole
 * document (a 100 MB PDF must not be parsed object by object: we only ever need the trailer chain,
 * the catalog, a page, the AcroForm and the object streams holding them).
 * pdf-lib's PDFObjectParser does the object syntax (ISO 32000-1 §7.3); we add the indirect-object
 * header `N G obj` (§7.3.10) ourselves so an offset that does not point at the expected object is
 * reported instead of silently read.
 */
import { PDFContext, PDFObject, PDFObjectParser } from 'pdf-lib';

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

/** Parses one direct object (dict, array, stream, …) starting at `pos`. */
export function parseObjectAt(bytes: Uint8Array, pos: number, context: PDFContext): PDFObject {
  return PDFObjectParser.forBytes(bytes.subarray(pos), context).parseObject();
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
  const object = parseObjectAt(bytes, header.bodyStart, context);
  return { objectNumber: header.objectNumber, generation: header.generation, object };
}

/** Latin-1 view of a byte range, for keyword searches near the end of the file. */
export function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = Math.max(0, start); i < Math.min(end, bytes.length); i++) s += String.fromCharCode(bytes[i]!);
  return s;
}
