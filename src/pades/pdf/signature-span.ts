/**
 * Where a signature dictionary's own /Contents string lies in the file: the bytes a signature's
 * /ByteRange must skip, exactly (ISO 32000-1 §12.8.1: "the signature value … shall be … the
 * entire hexadecimal string, including the delimiters, excluded"). The dictionary is found at the
 * offset the cross-reference data gives for its object (§7.5.4), its keys read in order; a
 * /Contents or /ByteRange written twice binds nothing (ISO 32000-2 §7.3.7). A /ByteRange copied from another signature skips that one's /Contents, not this
 * one's (the borrowed signature pdfsig calls "Digest Mismatch").
 */
import type { PDFContext, PDFRef } from 'pdf-lib';
import { PDFName } from 'pdf-lib';
import { parseObjectSpan, readObjectHeader, skipWhitespace } from './_object-parser';
import type { XrefEntry } from './xref';

export interface ContentsSpan {
  /** The object holding the dictionary, and where the cross-reference data puts it. */
  objectNumber: number;
  offset: number;
  /** Offset of the opening `<` of /Contents, and just after its closing `>`. */
  start: number;
  end: number;
}

/** Keys read in one dictionary before giving up: signature dictionaries hold about ten (§12.8.1 Table 252). */
const MAX_KEYS = 10_000;

/**
 * The value of the last `key` of the dictionary starting at `pos` (after white space): where it
 * starts and ends. A hex string is skipped by its delimiter, not read again (a /Contents may be
 * megabytes). Null when the bytes there are not a dictionary holding `key`.
 */
function valueSpan(pdf: Uint8Array, pos: number, key: string, context: PDFContext): { start: number; end: number; count: number } | null {
  let p = skipWhitespace(pdf, pos);
  if (pdf[p] !== 0x3c || pdf[p + 1] !== 0x3c) return null;
  p += 2;
  let found: { start: number; end: number; count: number } | null = null;
  let count = 0;
  for (let n = 0; n < MAX_KEYS; n++) {
    p = skipWhitespace(pdf, p);
    if (pdf[p] === 0x3e && pdf[p + 1] === 0x3e) return found;
    if (pdf[p] !== 0x2f) return null;
    const k = parseObjectSpan(pdf, p, context);
    if (!(k.object instanceof PDFName)) return null;
    const start = skipWhitespace(pdf, k.end);
    let end: number;
    if (pdf[start] === 0x3c && pdf[start + 1] !== 0x3c) {
      const close = pdf.indexOf(0x3e, start);
      if (close < 0) return null;
      end = close + 1;
    } else {
      end = parseObjectSpan(pdf, start, context).end;
    }
    if (k.object.decodeText() === key) found = { start, end, count: ++count };
    p = end;
  }
  return null;
}

/**
 * The span of /Contents of the signature dictionary `sig`: an indirect object, or the /V written
 * inside the field object `field`. A string saying why when it cannot be found where the
 * cross-reference data says.
 */
export function contentsSpan(pdf: Uint8Array, entries: ReadonlyMap<number, XrefEntry>, context: PDFContext, sig: PDFRef | null, field: PDFRef | null): ContentsSpan | string {
  const holder = sig ?? field;
  if (!holder) return 'the signature dictionary is written inside a field that is not an object of its own';
  const num = holder.objectNumber;
  const entry = entries.get(num);
  if (!entry || entry.type === 'free') return `object ${num}, which holds the signature dictionary, is not in the cross-reference data`;
  if (entry.type === 'compressed') return `object ${num}, which holds the signature dictionary, is stored in object stream ${entry.streamNumber}, where no /ByteRange can skip its /Contents`;
  const header = entry.offset < pdf.length ? readObjectHeader(pdf, entry.offset) : null;
  if (!header || header.objectNumber !== num) return `object ${num}, which holds the signature dictionary, is not at byte ${entry.offset} where the cross-reference data puts it`;
  let at = header.bodyStart;
  if (!sig) {
    const v = valueSpan(pdf, at, 'V', context);
    if (!v) return `field object ${num} holds no signature dictionary /V`;
    at = v.start;
  }
  const contents = valueSpan(pdf, at, 'Contents', context);
  if (!contents) return `the signature dictionary in object ${num} has no /Contents`;
  // ISO 32000-2 §7.3.7: a key at most once per dictionary. Readers differ on which of two they
  // take (poppler the first, PDFBox and pdf-lib the last): what the signature is depends on the reader.
  for (const [key, span] of [['Contents', contents], ['ByteRange', valueSpan(pdf, at, 'ByteRange', context)]] as const) {
    if (span && span.count > 1) return `the signature dictionary in object ${num} has /${key} ${span.count} times (ISO 32000-2 §7.3.7: a key at most once; readers differ on which they take)`;
  }
  if (pdf[contents.start] !== 0x3c) return `the /Contents of the signature dictionary in object ${num} is not a hexadecimal string`;
  return { objectNumber: num, offset: entry.offset, start: contents.start, end: contents.end };
}
