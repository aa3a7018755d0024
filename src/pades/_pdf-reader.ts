/**
 * Loads individual objects through the cross-reference chain, on demand, with a cache: top-level
 * objects at their offsets and objects of type 2 from object streams (ISO 32000-1 §7.5.7).
 * Never parses the whole file, so a 100 MB PDF costs only the objects we touch.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef } from 'pdf-lib';
import { PdfInputError } from '../errors/errors';
import { decodeStreamContents } from './_stream-decode';
import { parseIndirectObjectAt, parseObjectAt, readUnsigned, skipWhitespace } from './_object-parser';
import { brokenXref, readXrefChain, type XrefChain } from './xref';

interface ObjectStream {
  data: Uint8Array;
  first: number;
  /** Pairs [objectNumber, relative offset] in stream order. */
  index: [number, number][];
}

export class PdfReader {
  readonly context: PDFContext;
  readonly xref: XrefChain;
  private readonly cache = new Map<number, PDFObject>();
  private readonly streams = new Map<number, ObjectStream>();

  constructor(readonly pdf: Uint8Array) {
    if (!startsWithHeader(pdf)) {
      throw new PdfInputError('the data does not start with %PDF- (a PDF header is expected at byte 0)');
    }
    this.context = PDFContext.create();
    this.xref = readXrefChain(pdf, this.context);
  }

  /** The object behind `ref`; PDFNull-like undefined for free or missing entries (§7.3.10). */
  getObject(ref: PDFRef): PDFObject | undefined {
    const cached = this.cache.get(ref.objectNumber);
    if (cached) return cached;
    const entry = this.xref.entries.get(ref.objectNumber);
    if (!entry || entry.type === 'free') return undefined;
    let object: PDFObject;
    if (entry.type === 'offset') {
      if (entry.offset >= this.pdf.length) {
        throw brokenXref(`object ${ref.objectNumber} is listed at byte ${entry.offset}, past the end of the file`);
      }
      let parsed;
      try {
        parsed = parseIndirectObjectAt(this.pdf, entry.offset, this.context);
      } catch (e) {
        throw brokenXref(`object ${ref.objectNumber} at byte ${entry.offset} is unreadable`, e);
      }
      if (!parsed || parsed.objectNumber !== ref.objectNumber) {
        throw brokenXref(`object ${ref.objectNumber} ${entry.generation} is not at byte ${entry.offset}`);
      }
      object = parsed.object;
    } else {
      object = this.getCompressed(ref.objectNumber, entry.streamNumber, entry.index);
    }
    this.cache.set(ref.objectNumber, object);
    return object;
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
    const pair = stream.index[index];
    if (!pair || pair[0] !== objectNumber) {
      throw brokenXref(`object ${objectNumber} is not entry ${index} of object stream ${streamNumber}`);
    }
    try {
      return parseObjectAt(stream.data, stream.first + pair[1], this.context);
    } catch (e) {
      throw brokenXref(`object ${objectNumber} in object stream ${streamNumber} is unreadable`, e);
    }
  }

  /** Object streams being loaded: a stream listed as compressed inside itself (or a cycle of them) is broken, not a stack overflow. */
  private readonly loadingStreams = new Set<number>();

  private loadObjectStream(streamNumber: number): ObjectStream {
    const known = this.streams.get(streamNumber);
    if (known) return known;
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
    const n = stream.dict.get(PDFName.of('N'));
    const first = stream.dict.get(PDFName.of('First'));
    if (!(n instanceof PDFNumber) || !(first instanceof PDFNumber)) {
      throw brokenXref(`object stream ${streamNumber} lacks /N or /First`);
    }
    let data: Uint8Array;
    try {
      data = decodeStreamContents(stream);
    } catch (e) {
      throw brokenXref(`cannot decode object stream ${streamNumber}`, e);
    }
    const index: [number, number][] = [];
    let p = 0;
    for (let i = 0; i < n.asNumber(); i++) {
      const num = readUnsigned(data, skipWhitespace(data, p));
      const off = num && readUnsigned(data, skipWhitespace(data, num.end));
      if (!num || !off) throw brokenXref(`object stream ${streamNumber} has a malformed header`);
      index.push([num.value, off.value]);
      p = off.end;
    }
    const parsed = { data, first: first.asNumber(), index };
    this.streams.set(streamNumber, parsed);
    return parsed;
  }
}

export function startsWithHeader(pdf: Uint8Array): boolean {
  return pdf.length >= 5 && pdf[0] === 0x25 && pdf[1] === 0x50 && pdf[2] === 0x44 && pdf[3] === 0x46 && pdf[4] === 0x2d;
}
