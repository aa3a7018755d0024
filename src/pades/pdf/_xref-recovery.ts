/**
 * Recovery of damaged files, for validation only: when the cross-reference data is
 * broken (a startxref or /Prev that points at no section, a table whose offsets miss their
 * objects, a truncated file), the objects are found again by scanning the bytes for their
 * `N G obj` headers (ISO 32000-1 §7.3.10) and reading the object streams among them (§7.5.7), as
 * qpdf, pdfsig and PDFBox do. What was found stands in for the §7.5.4 offsets; the reader names
 * the damage. Signing never recovers (CONTRACT: a PDF whose cross-reference data is broken is
 * refused, offsets are not guessed).
 *
 * Bounded like the chain: every search is a Buffer.indexOf that starts past the
 * previous result, so the scan is linear in the file; each header found is counted against
 * MAX_XREF_ENTRIES; objects are parsed with the document's object budget and object streams
 * decoded with its decoded-bytes budget, each once.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import { unlessDamaged } from './limits';
import { countParsedObjects, isPdfWhitespace, parseIndirectObjectAt, parseObjectSpan, readUnsigned, skipWhitespace, type IndirectObject } from './_object-parser';
import { decodeStreamContents } from './_stream-decode';
import { reserveEntries, type XrefChain, type XrefEntry, type XrefScope } from './xref';

/** What a reader scope shares with recovery: its objects by offset, decoded streams and object budget. */
export interface RecoveryScope extends XrefScope {
  objects: Map<number, { object: PDFObject; objectNumber: number; end: number }>;
  decoded: WeakMap<PDFRawStream, Uint8Array | Error>;
  parsedObjects: { left: number };
}

/** §7.2.2 Table 2: the delimiters (white space is isPdfWhitespace). */
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
/** At most this many white-space bytes between the parts of a header: real writers use one. */
const MAX_HEADER_GAP = 32;

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

/** True when `byte` ends a token (§7.2.2: white space, a delimiter, or the end of the file). */
function endsToken(byte: number | undefined): boolean {
  return byte === undefined || isPdfWhitespace(byte) || DELIMITERS.has(byte);
}

/** Skips back over at most MAX_HEADER_GAP white-space bytes before `p` (inclusive); -2 when there are none or too many. */
function backOverWhitespace(b: Uint8Array, p: number): number {
  let q = p;
  while (q >= 0 && isPdfWhitespace(b[q]) && p - q < MAX_HEADER_GAP) q--;
  return q === p || (q >= 0 && isPdfWhitespace(b[q])) ? -2 : q;
}

/** Skips back over 1..`max` digits ending at `p`; -2 when there are none or more. */
function backOverDigits(b: Uint8Array, p: number, max: number): number {
  let q = p;
  while (q >= 0 && isDigit(b[q]) && p - q < max) q--;
  return q === p || isDigit(b[q]) ? -2 : q;
}

/**
 * The `N G obj` header whose keyword starts at `obj` (§7.3.10), read backwards in constant time:
 * an object number of at most 10 digits, a generation of at most 5, white space between, and a
 * token boundary on both sides.
 */
function headerAt(b: Uint8Array, obj: number): { offset: number; objectNumber: number; generation: number } | null {
  if (!endsToken(b[obj + 3])) return null;
  const genEnd = backOverWhitespace(b, obj - 1);
  if (genEnd < 0) return null;
  const numEnd = backOverWhitespace(b, backOverDigits(b, genEnd, 5));
  if (numEnd < 0) return null;
  const before = backOverDigits(b, numEnd, 10);
  if (before === -2 || (before >= 0 && !endsToken(b[before]))) return null;
  const num = readUnsigned(b, before + 1)!;
  const gen = readUnsigned(b, skipWhitespace(b, num.end))!;
  if (!Number.isSafeInteger(num.value) || gen.value > 65_535) return null;
  return { offset: before + 1, objectNumber: num.value, generation: gen.value };
}

/**
 * The next occurrence of a word at or after a position, asked with positions that only grow: a
 * search runs only past the last result, so all of them together read the file once.
 */
class Finder {
  /** The last result: -2 before the first search, -1 when the word does not occur again. */
  private at = -2;
  constructor(private readonly buf: Buffer, private readonly word: string) {}

  next(from: number): number {
    if (this.at === -1 || this.at >= from) return this.at;
    this.at = this.buf.indexOf(this.word, from, 'latin1');
    return this.at;
  }
}

/** What one pass over the bytes found, in file order. */
export interface ObjectScan {
  /** `N G obj` headers outside stream data: [offset, number, generation] flat. */
  headers: number[];
  /** Offsets just after each `trailer` keyword (§7.5.5) outside stream data. */
  trailers: number[];
  /** Header offsets of the objects whose dictionaries name /XRef, /ObjStm or /Catalog. */
  named: { XRef: number[]; ObjStm: number[]; Catalog: number[] };
}

/**
 * One pass over `pdf`: the object headers, skipping the data of streams (§7.3.8: a dictionary,
 * `stream`, an end of line, the data, `endstream`), so an embedded file or an uncompressed
 * content stream quoting `1 0 obj` does not stand in for a real object; then the `trailer`
 * keywords and the names /XRef, /ObjStm and /Catalog, each placed in the object holding it.
 */
export function scanObjects(pdf: Uint8Array, scope: XrefScope): ObjectScan {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.length);
  const headers: number[] = [];
  const skips: number[] = [];
  const stream = new Finder(buf, 'stream');
  const endstream = new Finder(buf, 'endstream');
  let skipUntil = 0;
  let hit = buf.indexOf('obj', 0, 'latin1');
  while (hit >= 0) {
    const next = buf.indexOf('obj', hit + 3, 'latin1');
    const header = hit >= skipUntil ? headerAt(pdf, hit) : null;
    if (header) {
      reserveEntries(scope, 1, `object headers found scanning the file`);
      headers.push(header.offset, header.objectNumber, header.generation);
      // A stream of this object: `stream` after `>>`, before the next `obj` (its `endobj`).
      const s = stream.next(hit + 3);
      if (s >= 0 && (next < 0 || s < next) && (pdf[s + 6] === 0x0a || pdf[s + 6] === 0x0d)) {
        let p = s - 1;
        while (p > hit && isPdfWhitespace(pdf[p])) p--;
        if (pdf[p] === 0x3e && pdf[p - 1] === 0x3e) {
          const e = endstream.next(s + 6);
          skipUntil = e < 0 ? pdf.length : e;
          skips.push(s + 6, skipUntil);
        }
      }
    }
    hit = next;
  }
  const outside = insideNone(skips);
  const trailers: number[] = [];
  for (let t = buf.indexOf('trailer', 0, 'latin1'); t >= 0; t = buf.indexOf('trailer', t + 7, 'latin1')) {
    if (endsToken(pdf[t - 1]) && endsToken(pdf[t + 7]) && outside(t)) trailers.push(t + 7);
  }
  const named: ObjectScan['named'] = { XRef: [], ObjStm: [], Catalog: [] };
  for (const name of ['XRef', 'ObjStm', 'Catalog'] as const) {
    const list = named[name];
    const word = `/${name}`;
    const outsideData = insideNone(skips);
    let h = 0;
    for (let at = buf.indexOf(word, 0, 'latin1'); at >= 0; at = buf.indexOf(word, at + word.length, 'latin1')) {
      if (!endsToken(pdf[at + word.length]) || !outsideData(at)) continue;
      // The object holding it: the last header before it (headers are in file order).
      while (h + 3 < headers.length && headers[h + 3]! < at) h += 3;
      if (h >= headers.length || headers[h]! > at) continue;
      if (list.at(-1) !== headers[h]) list.push(headers[h]!);
    }
  }
  return { headers, trailers, named };
}

/** A test that positions, asked in increasing order, lie outside the [start, end) pairs of `skips`. */
function insideNone(skips: number[]): (at: number) => boolean {
  let i = 0;
  return (at) => {
    while (i < skips.length && skips[i + 1]! <= at) i += 2;
    return !(i < skips.length && skips[i]! <= at);
  };
}

/** An object stream found by the scan: its object number, where its header is, and its members in order. */
interface FoundObjectStream {
  offset: number;
  objectNumber: number;
  members: number[];
}

/**
 * The cross-reference data of a damaged document, rebuilt once per document from the whole file
 * and cut to each revision a reader asks for (the objects whose headers lie before its end).
 */
export class XrefRecovery {
  readonly scan: ObjectScan;
  private readonly context = PDFContext.create();
  private objectStreams: FoundObjectStream[] | undefined;

  constructor(private readonly whole: Uint8Array, private readonly scope: RecoveryScope) {
    countParsedObjects(this.context, scope.parsedObjects);
    this.scan = scanObjects(whole, scope);
  }

  /** The indirect object whose header is at `offset` of the whole file, parsed once per document. */
  objectAt(offset: number): IndirectObject | null {
    const known = this.scope.objects.get(offset);
    if (known) return { objectNumber: known.objectNumber, generation: 0, object: known.object, end: known.end };
    const parsed = unlessDamaged(() => parseIndirectObjectAt(this.whole, offset, this.context));
    if (!parsed) return null;
    this.scope.objects.set(offset, { object: parsed.object, objectNumber: parsed.objectNumber, end: parsed.end });
    return parsed;
  }

  /** Header indexes (into scan.headers, by three) of each object number, in file order; made on first need. */
  private headersByNumber: Map<number, number[]> | undefined;

  /**
   * Where object `num` was written before `end`, newest first, at most `max` places: its headers
   * and its places in object streams. A reader takes the first it can read: the newest copy of a
   * truncated file may be cut off, where the copy of an earlier revision is whole.
   */
  placesOf(num: number, end: number, max: number): XrefEntry[] {
    if (!this.headersByNumber) {
      const byNumber = new Map<number, number[]>();
      const { headers } = this.scan;
      for (let i = 0; i < headers.length; i += 3) {
        const list = byNumber.get(headers[i + 1]!);
        if (list) list.push(i);
        else byNumber.set(headers[i + 1]!, [i]);
      }
      this.headersByNumber = byNumber;
    }
    const places: { at: number; entry: XrefEntry }[] = [];
    const { headers } = this.scan;
    for (const i of this.headersByNumber.get(num) ?? []) {
      if (headers[i]! < end) places.push({ at: headers[i]!, entry: { type: 'offset', offset: headers[i]!, generation: headers[i + 2]! } });
    }
    for (const os of this.foundObjectStreams()) {
      if (os.offset >= end) break;
      const index = os.members.indexOf(num);
      if (index >= 0) places.push({ at: os.offset, entry: { type: 'compressed', streamNumber: os.objectNumber, index } });
    }
    return places.sort((a, b) => b.at - a.at).slice(0, max).map((p) => p.entry);
  }

  private byEnd = new Map<number, Map<number, XrefEntry>>();

  /** Every object found before `end`, the later of two with one number winning (§7.5.6: updates append). */
  entries(end: number): Map<number, XrefEntry> {
    const known = this.byEnd.get(end);
    if (known) return known;
    const { headers } = this.scan;
    const entries = new Map<number, XrefEntry>();
    const at = new Map<number, number>();
    for (let i = 0; i < headers.length && headers[i]! < end; i += 3) {
      entries.set(headers[i + 1]!, { type: 'offset', offset: headers[i]!, generation: headers[i + 2]! });
      at.set(headers[i + 1]!, headers[i]!);
    }
    for (const os of this.foundObjectStreams()) {
      if (os.offset >= end) break;
      const own = entries.get(os.objectNumber);
      // Only the stream the table now names as that object can be asked for its members.
      if (own?.type !== 'offset' || own.offset !== os.offset) continue;
      os.members.forEach((num, index) => {
        if ((at.get(num) ?? -1) < os.offset) {
          entries.set(num, { type: 'compressed', streamNumber: os.objectNumber, index });
          at.set(num, os.offset);
        }
      });
    }
    this.byEnd.set(end, entries);
    return entries;
  }

  /** The object streams among the objects found (§7.5.7), each decoded once; a broken one is passed over. */
  private foundObjectStreams(): FoundObjectStream[] {
    if (this.objectStreams) return this.objectStreams;
    const found: FoundObjectStream[] = [];
    for (const offset of this.scan.named.ObjStm) {
      const parsed = this.objectAt(offset);
      const stream = parsed?.object;
      if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('ObjStm')) continue;
      const n = stream.dict.get(PDFName.of('N'));
      const first = stream.dict.get(PDFName.of('First'));
      const count = n instanceof PDFNumber ? n.asNumber() : -1;
      const firstAt = first instanceof PDFNumber ? first.asNumber() : -1;
      if (!Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(firstAt) || firstAt < 0) continue;
      const data = unlessDamaged(() => this.decode(stream));
      if (!data) continue;
      // §7.5.7: N pairs of integers before /First, each at least two digits and a separator.
      if (firstAt > data.length || count * 4 > firstAt + 1) continue;
      reserveEntries(this.scope, count, `object stream ${parsed!.objectNumber} found scanning the file`);
      const members: number[] = [];
      let p = 0;
      for (let i = 0; i < count; i++) {
        const num = readUnsigned(data, skipWhitespace(data, p));
        const off = num && readUnsigned(data, skipWhitespace(data, num.end));
        if (!num || !off) break;
        members.push(num.value);
        p = off.end;
      }
      found.push({ offset, objectNumber: parsed!.objectNumber, members });
    }
    this.objectStreams = found;
    return found;
  }

  /** Decoded once per document, like the reader's own decodes (the scope's cache and budget). */
  private decode(stream: PDFRawStream): Uint8Array {
    const known = this.scope.decoded.get(stream);
    if (known instanceof Uint8Array) return known;
    if (known) throw known;
    try {
      const data = decodeStreamContents(stream, this.scope.budget);
      this.scope.decoded.set(stream, data);
      return data;
    } catch (e) {
      if (e instanceof Error) this.scope.decoded.set(stream, e);
      throw e;
    }
  }

  /**
   * The chain of the revision ending at `end`, rebuilt: the objects found before it, and the
   * newest trailer (a `trailer` dictionary or an xref stream's, §7.5.8.2) whose /Root names one
   * of them; failing that, the newest /Type /Catalog dictionary found. `why` is the damage.
   */
  chainFor(end: number, context: PDFContext, why: string): XrefChain {
    const entries = this.entries(end);
    const trailer = this.newestTrailer(end, entries, context) ?? this.catalogTrailer(end, entries, context);
    if (!trailer) throw new PdfInputError(`${why}; scanning the file for objects found no document catalog (no trailer with /Root, no /Type /Catalog)`);
    let size = 0;
    for (const num of entries.keys()) size = Math.max(size, num + 1);
    const id = trailer.dict.get(PDFName.of('ID'));
    return {
      entries,
      trailer: trailer.dict,
      root: trailer.root,
      info: trailer.dict.get(PDFName.of('Info')) as XrefChain['info'],
      id: id instanceof PDFArray ? id : undefined,
      encrypt: trailer.dict.get(PDFName.of('Encrypt')) as XrefChain['encrypt'],
      lastKind: 'table',
      startxref: -1,
      size,
      sectionCount: 1,
      // One section standing for the whole file: change analysis compares every object (modifications.ts).
      sections: [{ offset: -1, entries }],
    };
  }

  private newestTrailer(end: number, entries: Map<number, XrefEntry>, context: PDFContext): { dict: PDFDict; root: PDFRef } | null {
    const { trailers, named } = this.scan;
    let t = trailers.length - 1;
    let x = named.XRef.length - 1;
    while (t >= 0 || x >= 0) {
      let dict: PDFObject | undefined;
      // Newest first, `trailer` keywords and xref streams alike.
      if (x < 0 || (t >= 0 && trailers[t]! > named.XRef[x]!)) {
        const at = trailers[t--]!;
        if (at >= end) continue;
        dict = unlessDamaged(() => parseObjectSpan(this.whole.subarray(0, end), skipWhitespace(this.whole, at), context).object);
        if (!dict) continue;
      } else {
        const at = named.XRef[x--]!;
        if (at >= end) continue;
        const parsed = this.objectAt(at);
        if (parsed && parsed.end <= end && parsed.object instanceof PDFRawStream && parsed.object.dict.get(PDFName.of('Type')) === PDFName.of('XRef')) dict = parsed.object.dict;
      }
      const root = dict instanceof PDFDict ? dict.get(PDFName.of('Root')) : undefined;
      if (dict instanceof PDFDict && root instanceof PDFRef && entries.has(root.objectNumber)) return { dict, root };
    }
    return null;
  }

  private catalogTrailer(end: number, entries: Map<number, XrefEntry>, context: PDFContext): { dict: PDFDict; root: PDFRef } | null {
    const catalogs = this.scan.named.Catalog;
    for (let i = catalogs.length - 1; i >= 0; i--) {
      const at = catalogs[i]!;
      if (at >= end) continue;
      const parsed = this.objectAt(at);
      const entry = parsed && entries.get(parsed.objectNumber);
      if (!parsed || parsed.end > end || !(parsed.object instanceof PDFDict) || parsed.object.get(PDFName.of('Type')) !== PDFName.of('Catalog')) continue;
      if (entry?.type !== 'offset' || entry.offset !== at) continue;
      const root = PDFRef.of(parsed.objectNumber, entry.generation);
      const dict = PDFDict.withContext(context);
      dict.set(PDFName.of('Root'), root);
      return { dict, root };
    }
    return null;
  }
}
