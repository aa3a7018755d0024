/**
 * Loads individual objects through the cross-reference chain, on demand, with a cache: top-level
 * objects at their offsets and objects of type 2 from object streams (ISO 32000-1 §7.5.7).
 * Never parses the whole file, so a 100 MB PDF costs only the objects we touch.
 *
 * The readers of one document share a scope: its decoded-bytes budget, each stream
 * decoded once, and the sections and objects already parsed, by offset. A reader of an earlier
 * revision (`revision(end)`: the file as it was signed, §7.5.6) reuses what lies inside it, so
 * validating many signatures costs little more than one.
 *
 * Validation reads damaged files too: a reader that recovers (`{ recover: true }`, or
 * `{ damage: list }`) rebuilds cross-reference data it cannot read by scanning the file
 * for objects, and reads an object the data misplaces where the scan found it (§7.5.4 offsets
 * replaced, as qpdf and pdfsig do), naming each repair in `damage`. Signing never recovers
 * (CONTRACT: broken cross-reference data is refused).
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import { refuseRangeErrors, tooComplex, TooComplexError } from './limits';
import { decodeStreamContents } from './_stream-decode';
import { countParsedObjects, newObjectBudget, parseIndirectObjectAt, parseObjectAt, readUnsigned, skipWhitespace } from './_object-parser';
import { XrefRecovery } from './_xref-recovery';
import { brokenXref, MAX_XREF_MERGED, newXrefScope, readXrefChain, reserveEntries, type XrefChain, type XrefEntry, type XrefScope } from './xref';

interface ObjectStream {
  data: Uint8Array;
  first: number;
  /** objectNumber, relative offset, objectNumber, … in stream order (flat: one number each). */
  index: number[];
  /** Objects parsed out of it, by index. */
  parsed: Map<number, PDFObject>;
}

export interface ReaderScope extends XrefScope {
  /** Top-level objects by offset, with the offset where each ends. */
  objects: Map<number, { object: PDFObject; objectNumber: number; end: number }>;
  /** Each stream's decoded bytes, or why it could not be decoded: decoded once whoever asks. */
  decoded: WeakMap<PDFRawStream, Uint8Array | Error>;
  objectStreams: WeakMap<PDFRawStream, ObjectStream>;
  /** Objects left to parse (MAX_PARSED_OBJECTS), shared by every reader of the document. */
  parsedObjects: { left: number };
  /** The whole document: its revisions are prefixes of it. */
  whole: Uint8Array;
  /** When its readers recover: the damage named so far, and the objects a scan of the whole file found (on first need). */
  recovery: { damage: string[]; rebuilt?: XrefRecovery } | null;
}

function newReaderScope(whole: Uint8Array, damage: string[] | null): ReaderScope {
  return {
    ...newXrefScope(), objects: new Map(), decoded: new WeakMap(), objectStreams: new WeakMap(), parsedObjects: newObjectBudget(), whole,
    recovery: damage ? { damage } : null,
  };
}

export interface ReaderOptions {
  /** Validation only: rebuild broken cross-reference data by scanning the file, and name the damage. */
  recover?: boolean;
  /** Recover, naming each repair in this list (the caller's: it keeps what was named if reading fails later). */
  damage?: string[];
}

/**
 * Lines of damage named per document: a file whose every offset is wrong is one damaged file,
 * not a report of a million lines.
 */
export const MAX_DAMAGE_LISTED = 20;
/**
 * Places of one object tried when its entry misleads: the newest copies a scan found. Each try
 * may read far into a damaged file, so a file holding a thousand broken copies of an object costs
 * a few reads of it, not a thousand.
 */
const MAX_PLACES_TRIED = 4;

export class PdfReader {
  readonly context: PDFContext;
  readonly xref: XrefChain;
  private readonly cache = new Map<number, PDFObject>();
  private readonly scope: ReaderScope;

  /**
   * `scope` is the document's (revision() passes it); a new document recovers when `options`
   * ask or when made inside `recoverDamaged` (xref.ts), and refuses broken data otherwise.
   */
  constructor(readonly pdf: Uint8Array, options: ReaderOptions = {}, scope?: ReaderScope) {
    if (!startsWithHeader(pdf)) {
      throw new PdfInputError('the data does not start with %PDF- (a PDF header is expected at byte 0)');
    }
    this.context = PDFContext.create();
    this.scope = scope ?? newReaderScope(pdf, options.damage ?? (options.recover ? [] : null));
    countParsedObjects(this.context, this.scope.parsedObjects);
    this.xref = refuseRangeErrors(() => this.readChain());
  }

  /** The document as it was up to byte `end` (a signed revision), read with this reader's scope. */
  revision(end: number): PdfReader {
    return new PdfReader(this.pdf.subarray(0, end), {}, this.scope);
  }

  /** What recovery repaired in this document, one line each (empty when nothing was, or when it does not recover). */
  get damage(): readonly string[] {
    return this.scope.recovery?.damage ?? [];
  }

  /** The chain from startxref; when it cannot be read and the reader recovers, the one a scan of the file rebuilds. */
  private readChain(): XrefChain {
    try {
      return readXrefChain(this.pdf, this.context, this.scope);
    } catch (e) {
      if (!this.recovers() || !(e instanceof PdfInputError) || e instanceof TooComplexError) throw e;
      const chain = this.recovered().chainFor(this.pdf.length, this.context, this.where(e.message));
      this.noteDamage(`${this.where(e.message)}; the objects were found by scanning the file`);
      return chain;
    }
  }

  /**
   * Whether this reader rebuilds what it cannot read: the whole document's reader when recovery is
   * on; a reader of a signed revision only once the document was found damaged. A revision that
   * does not stand on its own in a sound file (a /ByteRange ending before its revision's
   * `startxref`) is the signature's problem, not damage: change analysis says so for it.
   */
  private recovers(): boolean {
    const recovery = this.scope.recovery;
    return recovery !== null && (this.pdf.length === this.scope.whole.length || recovery.damage.length > 0);
  }

  /** The scan of the whole document, made once for all its readers. */
  private recovered(): XrefRecovery {
    const recovery = this.scope.recovery!;
    recovery.rebuilt ??= new XrefRecovery(this.scope.whole, this.scope);
    return recovery.rebuilt;
  }

  /** A message about this reader's bytes, naming the revision when it is not the whole file. */
  private where(message: string): string {
    return this.pdf.length === this.scope.whole.length ? message : `in the revision ending at byte ${this.pdf.length}: ${message}`;
  }

  private noteDamage(line: string): void {
    const damage = this.scope.recovery!.damage;
    if (damage.includes(line)) return;
    if (damage.length < MAX_DAMAGE_LISTED) damage.push(line);
    else if (damage.length === MAX_DAMAGE_LISTED) damage.push('more damage, not listed');
  }

  /**
   * An object whose cross-reference entry misleads (`failure`: not at its offset, unreadable
   * there, past the end, not in its object stream), read at the newest other place the scan found
   * it (at most MAX_PLACES_TRIED) when this reader recovers, else the failure stands. When none
   * of those reads (an object cut off by truncation), a recovering reader takes it as a reference
   * to no object, null (§7.3.10), as qpdf does, and names the damage.
   */
  private recoverObject(objectNumber: number, listed: XrefEntry, failure: unknown): PDFObject | undefined {
    if (!this.recovers() || !(failure instanceof PdfInputError) || failure instanceof TooComplexError) throw failure;
    for (const place of this.recovered().placesOf(objectNumber, this.pdf.length, MAX_PLACES_TRIED)) {
      if (place.type === 'free' || sameLocation(place, listed)) continue;
      let object: PDFObject;
      try {
        object = place.type === 'offset'
          ? this.objectAt(objectNumber, place.offset, place.generation)
          : this.getCompressed(objectNumber, place.streamNumber, place.index);
      } catch (e) {
        if (!(e instanceof PdfInputError) || e instanceof TooComplexError) throw e;
        continue;
      }
      const where = place.type === 'offset' ? `byte ${place.offset}` : `object stream ${place.streamNumber}`;
      this.noteDamage(`${this.where(failure.message)}; read at ${where}, where a scan of the file found it`);
      return object;
    }
    this.noteDamage(`${this.where(failure.message)}; read as null, found nowhere else`);
    return undefined;
  }

  /** Counts `n` cross-reference entries visited against the document's MAX_XREF_MERGED. */
  chargeEntries(n: number): void {
    this.scope.entriesMerged += n;
    if (this.scope.entriesMerged > MAX_XREF_MERGED) throw tooComplex(`more than ${MAX_XREF_MERGED} cross-reference entries read over its revisions`);
  }

  /**
   * The decoded contents of `stream` (§7.4), decoded once per document and charged to its
   * budget; PdfInputError when over it, Error when a filter cannot be undone.
   */
  decodeStream(stream: PDFRawStream): Uint8Array {
    const known = this.scope.decoded.get(stream);
    if (known instanceof Uint8Array) return known;
    if (known) throw known;
    try {
      const data = refuseRangeErrors(() => decodeStreamContents(stream, this.scope.budget));
      this.scope.decoded.set(stream, data);
      return data;
    } catch (e) {
      if (e instanceof Error) this.scope.decoded.set(stream, e);
      throw e;
    }
  }

  /** Objects a recovering reader could read nowhere: null from then on (§7.3.10), the damage named once. */
  private readonly unreadable = new Set<number>();

  /** The object behind `ref`; PDFNull-like undefined for free or missing entries (§7.3.10). */
  getObject(ref: PDFRef): PDFObject | undefined {
    const cached = this.cache.get(ref.objectNumber);
    if (cached) return cached;
    if (this.unreadable.has(ref.objectNumber)) return undefined;
    const entry = this.xref.entries.get(ref.objectNumber);
    if (!entry || entry.type === 'free') return undefined;
    let object: PDFObject;
    try {
      object = entry.type === 'offset'
        ? this.objectAt(ref.objectNumber, entry.offset, entry.generation)
        : this.getCompressed(ref.objectNumber, entry.streamNumber, entry.index);
    } catch (e) {
      const recovered = this.recoverObject(ref.objectNumber, entry, e);
      if (!recovered) {
        this.unreadable.add(ref.objectNumber);
        return undefined;
      }
      object = recovered;
    }
    this.cache.set(ref.objectNumber, object);
    return object;
  }

  private objectAt(objectNumber: number, offset: number, generation: number): PDFObject {
    const shared = this.scope.objects.get(offset);
    if (shared && shared.end <= this.pdf.length && shared.objectNumber === objectNumber) return shared.object;
    if (offset >= this.pdf.length) {
      throw brokenXref(`object ${objectNumber} is listed at byte ${offset}, past the end of the file`);
    }
    let parsed;
    try {
      parsed = parseIndirectObjectAt(this.pdf, offset, this.context);
    } catch (e) {
      if (e instanceof PdfInputError) throw e;
      if (e instanceof RangeError) throw tooComplex(`object ${objectNumber} at byte ${offset}: ${e.message}`, e);
      throw brokenXref(`object ${objectNumber} at byte ${offset} is unreadable`, e);
    }
    if (!parsed || parsed.objectNumber !== objectNumber) {
      throw brokenXref(`object ${objectNumber} ${generation} is not at byte ${offset}`);
    }
    if (!shared) this.scope.objects.set(offset, { object: parsed.object, objectNumber, end: parsed.end });
    return parsed.object;
  }

  /** Generation to use when rewriting `ref` (objects in object streams have generation 0). */
  generationOf(objectNumber: number): number {
    const entry = this.xref.entries.get(objectNumber);
    return entry?.type === 'offset' ? entry.generation : 0;
  }

  /** Follows a reference (one level is all PDF allows to matter here). */
  resolve(obj: PDFObject | undefined): PDFObject | undefined {
    return obj instanceof PDFRef ? this.getObject(obj) : obj;
  }

  get(dict: PDFDict, key: string): PDFObject | undefined {
    return this.resolve(dict.get(PDFName.of(key)));
  }

  getDict(dict: PDFDict, key: string): PDFDict | undefined {
    const v = this.get(dict, key);
    return v instanceof PDFDict ? v : undefined;
  }

  getArray(dict: PDFDict, key: string): PDFArray | undefined {
    const v = this.get(dict, key);
    return v instanceof PDFArray ? v : undefined;
  }

  getNumber(dict: PDFDict, key: string): number | undefined {
    const v = this.get(dict, key);
    return v instanceof PDFNumber ? v.asNumber() : undefined;
  }

  /** The document catalog; PdfInputError when it cannot be read (CONTRACT: catalog readable). */
  catalog(): { ref: PDFRef; dict: PDFDict } {
    const root = this.xref.root;
    if (!(root instanceof PDFRef)) throw new PdfInputError('the trailer /Root is not an indirect reference');
    const dict = this.getObject(root);
    if (!(dict instanceof PDFDict)) throw new PdfInputError(`the catalog (object ${root.objectNumber}) is unreadable`);
    return { ref: root, dict };
  }

  private getCompressed(objectNumber: number, streamNumber: number, index: number): PDFObject {
    const stream = this.loadObjectStream(streamNumber);
    const known = stream.parsed.get(index);
    if (known) return known;
    if (stream.index[2 * index] !== objectNumber) {
      throw brokenXref(`object ${objectNumber} is not entry ${index} of object stream ${streamNumber}`);
    }
    let object: PDFObject;
    try {
      object = parseObjectAt(stream.data, stream.first + stream.index[2 * index + 1]!, this.context);
    } catch (e) {
      if (e instanceof PdfInputError) throw e;
      if (e instanceof RangeError) throw tooComplex(`object ${objectNumber} in object stream ${streamNumber}: ${e.message}`, e);
      throw brokenXref(`object ${objectNumber} in object stream ${streamNumber} is unreadable`, e);
    }
    stream.parsed.set(index, object);
    return object;
  }

  /** Object streams being loaded: a stream listed as compressed inside itself (or a cycle of them) is broken, not a stack overflow. */
  private readonly loadingStreams = new Set<number>();

  private loadObjectStream(streamNumber: number): ObjectStream {
    if (this.loadingStreams.has(streamNumber)) throw brokenXref(`object stream ${streamNumber} is listed as stored inside an object stream that needs it`);
    this.loadingStreams.add(streamNumber);
    try {
      return this.readObjectStream(streamNumber);
    } finally {
      this.loadingStreams.delete(streamNumber);
    }
  }

  private readObjectStream(streamNumber: number): ObjectStream {
    const stream = this.getObject(PDFRef.of(streamNumber));
    if (!(stream instanceof PDFRawStream)) throw brokenXref(`object stream ${streamNumber} is not a stream`);
    const known = this.scope.objectStreams.get(stream);
    if (known) return known;
    const n = stream.dict.get(PDFName.of('N'));
    const first = stream.dict.get(PDFName.of('First'));
    const count = n instanceof PDFNumber ? n.asNumber() : -1;
    const firstAt = first instanceof PDFNumber ? first.asNumber() : -1;
    if (!Number.isSafeInteger(count) || count < 0 || !Number.isSafeInteger(firstAt) || firstAt < 0) {
      throw brokenXref(`object stream ${streamNumber} lacks /N or /First as non-negative integers`);
    }
    let data: Uint8Array;
    try {
      data = this.decodeStream(stream);
    } catch (e) {
      if (e instanceof PdfInputError) throw e;
      throw brokenXref(`cannot decode object stream ${streamNumber}`, e);
    }
    // §7.5.7: N pairs of integers before /First, each at least two digits and a separator.
    if (firstAt > data.length || count * 4 > firstAt + 1) {
      throw brokenXref(`object stream ${streamNumber} claims ${count} objects in a header of ${Math.min(firstAt, data.length)} bytes`);
    }
    reserveEntries(this.scope, count, `object stream ${streamNumber}`);
    const index: number[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      const num = readUnsigned(data, skipWhitespace(data, p));
      const off = num && readUnsigned(data, skipWhitespace(data, num.end));
      if (!num || !off) throw brokenXref(`object stream ${streamNumber} has a malformed header`);
      index.push(num.value, off.value);
      p = off.end;
    }
    const parsed = { data, first: firstAt, index, parsed: new Map<number, PDFObject>() };
    this.scope.objectStreams.set(stream, parsed);
    return parsed;
  }
}

function sameLocation(a: XrefEntry, b: XrefEntry): boolean {
  if (a.type === 'offset' && b.type === 'offset') return a.offset === b.offset;
  if (a.type === 'compressed' && b.type === 'compressed') return a.streamNumber === b.streamNumber && a.index === b.index;
  return a.type === b.type;
}

export function startsWithHeader(pdf: Uint8Array): boolean {
  return pdf.length >= 5 && pdf[0] === 0x25 && pdf[1] === 0x50 && pdf[2] === 0x44 && pdf[3] === 0x46 && pdf[4] === 0x2d;
}
