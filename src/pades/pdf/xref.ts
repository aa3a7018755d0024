/**
 * Reads the real cross-reference chain of a PDF (ISO 32000-1 §7.5.4 tables, §7.5.8 streams,
 * §7.5.8.4 hybrid files, §7.5.6 incremental updates): from the last `startxref`, through every
 * `/Prev`, merging newest first. Offsets are taken as written and never reconstructed
 * (CONTRACT: a PDF whose cross-reference data is broken is refused, offsets are not guessed);
 * only validation (a reader made with `damage`, pdf-reader.ts) rebuilds broken data by scanning the
 * file (_xref-recovery.ts) and name the damage.
 * Every count a section claims is checked against the bytes that must hold it before any loop
 * runs, and the entries of one document are capped (a 318-byte xref stream claiming
 * 20 million zero-width rows answered a 500 after 1.3 GB).
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import { tooComplex } from './limits';
import { DecodeBudget, decodeStreamContents } from './_stream-decode';
import { latin1, matchKeyword, parseIndirectObjectAt, parseObjectSpan, readUnsigned, skipWhitespace } from './_object-parser';

export type XrefEntry =
  | { type: 'free' }
  | { type: 'offset'; offset: number; generation: number }
  | { type: 'compressed'; streamNumber: number; index: number };

/** Kind of the newest section: a hybrid is a table whose trailer has /XRefStm (§7.5.8.4). */
export type XrefKind = 'table' | 'stream' | 'hybrid';

export interface XrefChain {
  entries: ReadonlyMap<number, XrefEntry>;
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
  /** The sections as read, newest first: what an incremental update added is in the first ones. */
  sections: readonly XrefSection[];
}

export interface XrefSection {
  /** Where the section starts (a `startxref` or `/Prev` value). */
  offset: number;
  entries: ReadonlyMap<number, XrefEntry>;
}

/**
 * Entries one document may hold across all the sections read for it (its revisions included).
 * A classic table spends 20 bytes per entry (§7.5.4) but an xref stream as little as one decoded
 * byte, so a few kilobytes of FlateDecode can claim millions; each entry costs about 60 bytes of
 * heap here (measured on Node 20). 2^22 is four times a million objects, far above what documents
 * people sign hold, and keeps the worst case near 256 MiB.
 */
export const MAX_XREF_ENTRIES = 4_194_304;
/**
 * Entries merged into chains for one document: the whole file's chain and one per signed
 * revision validation reads. 2^24 is V8's Map limit (the probe's 500 was this RangeError), and
 * about two seconds of work.
 */
export const MAX_XREF_MERGED = 16_777_216;

/**
 * What the readers of one document share: the decoded-bytes budget, the sections already read
 * (by offset, with the offset where their bytes end, so a reader of an earlier revision reuses
 * them only when they lie inside it) and the entry counts above.
 */
export interface XrefScope {
  budget: DecodeBudget;
  sections: Map<number, Section & { end: number }>;
  entriesRead: number;
  entriesMerged: number;
}

export function newXrefScope(): XrefScope {
  return { budget: new DecodeBudget(), sections: new Map(), entriesRead: 0, entriesMerged: 0 };
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

/** One shared object for every free entry: a table of a million free entries holds one. */
const FREE: XrefEntry = Object.freeze({ type: 'free' });

/** The smallest entry the table reader accepts: `0 0n` (§7.5.4 writes 20 bytes, readers are lenient). */
const MIN_TABLE_ENTRY = 4;

/** Counts `rows` more entries against the document's MAX_XREF_ENTRIES before they are made. */
export function reserveEntries(scope: XrefScope, rows: number, where: string): void {
  scope.entriesRead += rows;
  if (scope.entriesRead > MAX_XREF_ENTRIES) {
    throw tooComplex(`more than ${MAX_XREF_ENTRIES} cross-reference entries (${where})`);
  }
}

function parseTable(pdf: Uint8Array, offset: number, context: PDFContext, scope: XrefScope): Section & { end: number } {
  const entries = new Map<number, XrefEntry>();
  let p = skipWhitespace(pdf, offset + 4);
  for (;;) {
    if (matchKeyword(pdf, p, 'trailer')) break;
    const start = readUnsigned(pdf, p);
    const count = start && readUnsigned(pdf, skipWhitespace(pdf, start.end));
    if (!start || !count) throw brokenXref(`malformed subsection header in the table at byte ${p}`);
    if (!Number.isSafeInteger(start.value + count.value)) throw brokenXref(`subsection header at byte ${p} is out of range`);
    p = skipWhitespace(pdf, count.end);
    // Checked before the loop: a count the rest of the file cannot hold is broken, not work.
    if (count.value * MIN_TABLE_ENTRY > pdf.length - p) {
      throw brokenXref(`the subsection at byte ${p} lists ${count.value} entries, more than the rest of the file holds`);
    }
    reserveEntries(scope, count.value, `table at byte ${offset}`);
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
        entries.set(num, type === 0x6e ? { type: 'offset', offset: off.value, generation: gen.value } : FREE);
      }
      p = skipWhitespace(pdf, typePos + 1);
    }
  }
  let trailer;
  let end: number;
  try {
    ({ object: trailer, end } = parseObjectSpan(pdf, skipWhitespace(pdf, p + 'trailer'.length), context));
  } catch (e) {
    if (e instanceof PdfInputError) throw e;
    throw brokenXref(`unreadable trailer at byte ${p}`, e);
  }
  if (!(trailer instanceof PDFDict)) throw brokenXref(`the trailer at byte ${p} is not a dictionary`);
  const xrefStm = trailer.get(PDFName.of('XRefStm'));
  if (xrefStm instanceof PDFNumber) {
    // §7.5.8.4: a hybrid file's table lists objects for old readers; the stream at /XRefStm adds
    // the compressed ones, and those take precedence over the table's free placeholders.
    const hidden = parseStream(pdf, xrefStm.asNumber(), context, scope);
    for (const [num, entry] of hidden.entries) {
      const current = entries.get(num);
      if (!current || current.type === 'free') entries.set(num, entry);
    }
    return { entries, trailer, kind: 'hybrid', end: Math.max(end, hidden.end) };
  }
  return { entries, trailer, kind: 'table', end };
}

/** A number of a cross-reference stream's dictionary that must be a non-negative integer. */
function count(value: unknown): number {
  const n = value instanceof PDFNumber ? value.asNumber() : -1;
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

function intAt(data: Uint8Array, pos: number, width: number): number {
  let v = 0;
  for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
  return v;
}

function parseStream(pdf: Uint8Array, offset: number, context: PDFContext, scope: XrefScope): Section & { end: number } {
  if (offset >= pdf.length) throw brokenXref(`cross-reference stream offset ${offset} is past the end of the file`);
  let parsed;
  try {
    parsed = parseIndirectObjectAt(pdf, offset, context);
  } catch (e) {
    if (e instanceof PdfInputError) throw e;
    throw brokenXref(`unreadable cross-reference stream at byte ${offset}`, e);
  }
  const stream = parsed?.object;
  if (!parsed || !(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
    throw brokenXref(`no cross-reference section at byte ${offset}`);
  }
  const dict = stream.dict;
  const w = dict.get(PDFName.of('W'));
  const size = count(dict.get(PDFName.of('Size')));
  if (!(w instanceof PDFArray) || w.size() !== 3 || size < 0) {
    throw brokenXref(`cross-reference stream at byte ${offset} lacks /W or a /Size that is a non-negative integer`);
  }
  const widths = w.asArray().map(count);
  if (widths.some((x) => x < 0 || x > 8)) throw brokenXref(`bad /W in the cross-reference stream at byte ${offset}`);
  const [w0, w1, w2] = widths as [number, number, number];
  const rowLength = w0 + w1 + w2;
  // §7.5.8.2: a row is the three fields; with none, no row ends and no data is ever read.
  if (rowLength === 0) throw brokenXref(`/W [0 0 0] in the cross-reference stream at byte ${offset}: rows of zero bytes`);
  const index = dict.get(PDFName.of('Index'));
  let ranges: number[];
  if (index === undefined) {
    ranges = [0, size];
  } else {
    // §7.5.8.2 Table 17: pairs of integers, the first object number and the number of entries.
    ranges = index instanceof PDFArray ? index.asArray().map(count) : [-1];
    if (ranges.length % 2 !== 0 || ranges.some((x) => x < 0)) {
      throw brokenXref(`/Index of the cross-reference stream at byte ${offset} is not pairs of non-negative integers`);
    }
  }
  let rows = 0;
  for (let r = 1; r < ranges.length; r += 2) rows += ranges[r]!;
  let data: Uint8Array;
  try {
    data = decodeStreamContents(stream, scope.budget);
  } catch (e) {
    if (e instanceof PdfInputError) throw e;
    throw brokenXref(`cannot decode the cross-reference stream at byte ${offset}`, e);
  }
  // Checked before the loop: the rows /Index claims must be in the data (a 318-byte stream
  // claiming 20 million rows answered a 500 after 1.3 GB).
  if (rows * rowLength > data.length) {
    throw brokenXref(`cross-reference stream at byte ${offset} is truncated: /Index lists ${rows} rows of ${rowLength} bytes, the data holds ${Math.floor(data.length / rowLength)}`);
  }
  reserveEntries(scope, rows, `cross-reference stream at byte ${offset}`);
  const entries = new Map<number, XrefEntry>();
  let pos = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const first = ranges[r]!;
    const rowsHere = ranges[r + 1]!;
    for (let i = 0; i < rowsHere; i++, pos += rowLength) {
      // §7.5.8.2 Table 17 note: with w0 = 0 the type defaults to 1.
      const type = w0 === 0 ? 1 : intAt(data, pos, w0);
      const f2 = intAt(data, pos + w0, w1);
      const f3 = intAt(data, pos + w0 + w1, w2);
      const num = first + i;
      if (entries.has(num)) continue;
      if (type === 1) entries.set(num, { type: 'offset', offset: f2, generation: f3 });
      else if (type === 2) entries.set(num, { type: 'compressed', streamNumber: f2, index: f3 });
      else entries.set(num, FREE);
    }
  }
  return { entries, trailer: dict, kind: 'stream', end: parsed.end };
}

/** The section at `offset`, read once per document: a reader of an earlier revision reuses it when its bytes lie inside that revision. */
function parseSection(pdf: Uint8Array, offset: number, context: PDFContext, scope: XrefScope): Section {
  const known = scope.sections.get(offset);
  if (known && known.end <= pdf.length) return known;
  const p = skipWhitespace(pdf, offset);
  const section = matchKeyword(pdf, p, 'xref') ? parseTable(pdf, p, context, scope) : parseStream(pdf, offset, context, scope);
  if (!known) scope.sections.set(offset, section);
  return section;
}

/**
 * Reads and merges every section of the chain; throws PdfInputError when any part is broken or
 * the document is over a limit. `scope` is shared by the readers of one document.
 */
export function readXrefChain(pdf: Uint8Array, context: PDFContext = PDFContext.create(), scope: XrefScope = newXrefScope()): XrefChain {
  const startxref = findStartxref(pdf);
  const seen = new Set<number>();
  let offset: number | undefined = startxref;
  let newest: Section | undefined;
  const keys: Record<'Root' | 'Info' | 'ID' | 'Encrypt', PDFObjectLike | undefined> = {
    Root: undefined, Info: undefined, ID: undefined, Encrypt: undefined,
  };
  let sectionCount = 0;
  const sections: XrefSection[] = [];
  while (offset !== undefined) {
    if (seen.has(offset)) throw brokenXref(`/Prev chain loops back to byte ${offset}`);
    if (!Number.isSafeInteger(offset) || offset < 0) throw brokenXref(`/Prev ${offset} is not a byte offset`);
    if (offset >= pdf.length) throw brokenXref(`/Prev points to byte ${offset}, past the end of the file`);
    seen.add(offset);
    const section = parseSection(pdf, offset, context, scope);
    sectionCount++;
    sections.push({ offset, entries: section.entries });
    newest ??= section;
    for (const key of Object.keys(keys) as (keyof typeof keys)[]) {
      keys[key] ??= section.trailer.get(PDFName.of(key)) as PDFObjectLike | undefined;
    }
    const prev = section.trailer.get(PDFName.of('Prev'));
    offset = prev instanceof PDFNumber ? prev.asNumber() : undefined;
  }
  // Newest first wins (§7.5.6); a single section is its own merge.
  let entries = sections[0]!.entries;
  if (sections.length > 1) {
    for (const section of sections) scope.entriesMerged += section.entries.size;
    if (scope.entriesMerged > MAX_XREF_MERGED) {
      throw tooComplex(`more than ${MAX_XREF_MERGED} cross-reference entries merged over its revisions`);
    }
    const merged = new Map<number, XrefEntry>();
    for (const section of sections) for (const [num, entry] of section.entries) if (!merged.has(num)) merged.set(num, entry);
    entries = merged;
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
    sections,
  };
}
