/**
 * Reads the real cross-reference chain of a PDF (ISO 32000-1 §7.5.4 tables, §7.5.8 streams,
 * §7.5.8.4 hybrid files, §7.5.6 incremental updates): from the last `startxref`, through every
 * `/Prev`, merging newest first. Offsets are taken as written and never reconstructed
 * (CONTRACT: a PDF whose cross-reference data is broken is refused, offsets are not guessed).
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { PdfInputError } from '../errors/errors';
import { decodeStreamContents } from './_stream-decode';
import { latin1, matchKeyword, parseIndirectObjectAt, parseObjectAt, readUnsigned, skipWhitespace } from './_object-parser';

export type XrefEntry =
  | { type: 'free' }
  | { type: 'offset'; offset: number; generation: number }
  | { type: 'compressed'; streamNumber: number; index: number };

/** Kind of the newest section: a hybrid is a table whose trailer has /XRefStm (§7.5.8.4). */
export type XrefKind = 'table' | 'stream' | 'hybrid';

export interface XrefChain {
  entries: Map<number, XrefEntry>;
  /** Newest trailer (the xref stream's dictionary when the last section is a stream). */
  trailer: PDFDict;
  /** /Root, /Info, /ID, /Encrypt as the newest trailer carrying them has them. */
  root: PDFObjectLike;
  info: PDFObjectLike | undefined;
  id: PDFArray | undefined;
  encrypt: PDFObjectLike | undefined;
  lastKind: XrefKind;
  startxref: number;
  /** The newest trailer's /Size: the first object number free for new objects. */
  size: number;
  sectionCount: number;
}

type PDFObjectLike = ReturnType<PDFDict['get']> & object;

export function brokenXref(what: string, cause?: unknown): PdfInputError {
  return new PdfInputError(`cross-reference data is broken: ${what}`, cause === undefined ? undefined : { cause });
}

/** Finds the offset written after the last `startxref` (§7.5.5: it is in the last lines). */
export function findStartxref(pdf: Uint8Array): number {
  const tailStart = Math.max(0, pdf.length - 4096);
  const tail = latin1(pdf, tailStart, pdf.length);
  const at = tail.lastIndexOf('startxref');
  if (at < 0) throw brokenXref('no startxref near the end of the file');
  const p = skipWhitespace(pdf, tailStart + at + 'startxref'.length);
  const n = readUnsigned(pdf, p);
  if (!n) throw brokenXref('startxref is not followed by a byte offset');
  if (n.value >= pdf.length) throw brokenXref(`startxref points to byte ${n.value}, past the end of the file`);
  return n.value;
}

interface Section {
  entries: Map<number, XrefEntry>;
  trailer: PDFDict;
  kind: XrefKind;
}

function parseTable(pdf: Uint8Array, offset: number, context: PDFContext): Section {
  const entries = new Map<number, XrefEntry>();
  let p = skipWhitespace(pdf, offset + 4);
  for (;;) {
    if (matchKeyword(pdf, p, 'trailer')) break;
    const start = readUnsigned(pdf, p);
    const count = start && readUnsigned(pdf, skipWhitespace(pdf, start.end));
    if (!start || !count) throw brokenXref(`malformed subsection header in the table at byte ${p}`);
    p = skipWhitespace(pdf, count.end);
    for (let i = 0; i < count.value; i++) {
      const off = readUnsigned(pdf, p);
      const gen = off && readUnsigned(pdf, skipWhitespace(pdf, off.end));
      const typePos = gen ? skipWhitespace(pdf, gen.end) : -1;
      const type = pdf[typePos];
      if (!off || !gen || (type !== 0x6e && type !== 0x66)) {
        throw brokenXref(`malformed entry for object ${start.value + i} in the table at byte ${p}`);
      }
      const num = start.value + i;
      if (!entries.has(num)) {
        entries.set(num, type === 0x6e ? { type: 'offset', offset: off.value, generation: gen.value } : { type: 'free' });
      }
      p = skipWhitespace(pdf, typePos + 1);
    }
  }
  let trailer;
  try {
    trailer = parseObjectAt(pdf, skipWhitespace(pdf, p + 'trailer'.length), context);
  } catch (e) {
    throw brokenXref(`unreadable trailer at byte ${p}`, e);
  }
  if (!(trailer instanceof PDFDict)) throw brokenXref(`the trailer at byte ${p} is not a dictionary`);
  const xrefStm = trailer.get(PDFName.of('XRefStm'));
  if (xrefStm instanceof PDFNumber) {
    // §7.5.8.4: a hybrid file's table lists objects for old readers; the stream at /XRefStm adds
    // the compressed ones, and those take precedence over the table's free placeholders.
    const hidden = parseStream(pdf, xrefStm.asNumber(), context);
    for (const [num, entry] of hidden.entries) {
      const current = entries.get(num);
      if (!current || current.type === 'free') entries.set(num, entry);
    }
    return { entries, trailer, kind: 'hybrid' };
  }
  return { entries, trailer, kind: 'table' };
}

function intAt(data: Uint8Array, pos: number, width: number): number {
  let v = 0;
  for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
  return v;
}

function parseStream(pdf: Uint8Array, offset: number, context: PDFContext): Section {
  if (offset >= pdf.length) throw brokenXref(`cross-reference stream offset ${offset} is past the end of the file`);
  let parsed;
  try {
    parsed = parseIndirectObjectAt(pdf, offset, context);
  } catch (e) {
    throw brokenXref(`unreadable cross-reference stream at byte ${offset}`, e);
  }
  const stream = parsed?.object;
  if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
    throw brokenXref(`no cross-reference section at byte ${offset}`);
  }
  const dict = stream.dict;
  const w = dict.get(PDFName.of('W'));
  const size = dict.get(PDFName.of('Size'));
  if (!(w instanceof PDFArray) || w.size() !== 3 || !(size instanceof PDFNumber)) {
    throw brokenXref(`cross-reference stream at byte ${offset} lacks /W or /Size`);
  }
  const widths = w.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : -1));
  if (widths.some((x) => x < 0 || x > 8)) throw brokenXref(`bad /W in the cross-reference stream at byte ${offset}`);
  const index = dict.get(PDFName.of('Index'));
  const ranges = index instanceof PDFArray ? index.asArray().map((x) => (x as PDFNumber).asNumber()) : [0, size.asNumber()];
  let data: Uint8Array;
  try {
    data = decodeStreamContents(stream);
  } catch (e) {
    throw brokenXref(`cannot decode the cross-reference stream at byte ${offset}`, e);
  }
  const [w0, w1, w2] = widths as [number, number, number];
  const rowLength = w0 + w1 + w2;
  const entries = new Map<number, XrefEntry>();
  let pos = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const first = ranges[r]!;
    const count = ranges[r + 1]!;
    for (let i = 0; i < count; i++, pos += rowLength) {
      if (pos + rowLength > data.length) throw brokenXref(`cross-reference stream at byte ${offset} is truncated`);
      const type = w0 === 0 ? 1 : intAt(data, pos, w0);
      const f2 = intAt(data, pos + w0, w1);
      const f3 = intAt(data, pos + w0 + w1, w2);
      const num = first + i;
      if (entries.has(num)) continue;
      if (type === 1) entries.set(num, { type: 'offset', offset: f2, generation: f3 });
      else if (type === 2) entries.set(num, { type: 'compressed', streamNumber: f2, index: f3 });
      else entries.set(num, { type: 'free' });
    }
  }
  return { entries, trailer: dict, kind: 'stream' };
}

function parseSection(pdf: Uint8Array, offset: number, context: PDFContext): Section {
  const p = skipWhitespace(pdf, offset);
  if (matchKeyword(pdf, p, 'xref')) return parseTable(pdf, p, context);
  return parseStream(pdf, offset, context);
}

/** Reads and merges every section of the chain; throws PdfInputError when any part is broken. */
export function readXrefChain(pdf: Uint8Array, context: PDFContext = PDFContext.create()): XrefChain {
  const startxref = findStartxref(pdf);
  const entries = new Map<number, XrefEntry>();
  const seen = new Set<number>();
  let offset: number | undefined = startxref;
  let newest: Section | undefined;
  const keys: Record<'Root' | 'Info' | 'ID' | 'Encrypt', PDFObjectLike | undefined> = {
    Root: undefined, Info: undefined, ID: undefined, Encrypt: undefined,
  };
  let sectionCount = 0;
  while (offset !== undefined) {
    if (seen.has(offset)) throw brokenXref(`/Prev chain loops back to byte ${offset}`);
    if (offset >= pdf.length) throw brokenXref(`/Prev points to byte ${offset}, past the end of the file`);
    seen.add(offset);
    const section = parseSection(pdf, offset, context);
    sectionCount++;
    newest ??= section;
    for (const [num, entry] of section.entries) if (!entries.has(num)) entries.set(num, entry);
    for (const key of Object.keys(keys) as (keyof typeof keys)[]) {
      keys[key] ??= section.trailer.get(PDFName.of(key)) as PDFObjectLike | undefined;
    }
    const prev = section.trailer.get(PDFName.of('Prev'));
    offset = prev instanceof PDFNumber ? prev.asNumber() : undefined;
  }
  const size = newest!.trailer.get(PDFName.of('Size'));
  if (!(size instanceof PDFNumber)) throw brokenXref('the newest trailer has no /Size');
  if (!keys.Root) throw new PdfInputError('the trailer has no /Root: the catalog is unreadable');
  return {
    entries,
    trailer: newest!.trailer,
    root: keys.Root,
    info: keys.Info,
    id: keys.ID instanceof PDFArray ? keys.ID : undefined,
    encrypt: keys.Encrypt,
    lastKind: newest!.kind,
    startxref,
    size: size.asNumber(),
    sectionCount,
  };
}
