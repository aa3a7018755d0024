/**
 * The one stream decoder of the engine (ISO 32000-1 §7.4): cross-reference streams (§7.5.8),
 * object streams (§7.5.7), content streams (§7.8.2) and DSS entries all come through here, with
 * the reader's DecodeBudget. FlateDecode is Node's zlib with an output cap, then the PNG
 * predictors of §7.4.4.4 (Table 8), which pdf-lib does not apply; the other decoding filters are
 * pdf-lib's, read a chunk at a time under the same cap. Nothing here inflates without a limit: a
 * 1 MB flate bomb in an xref stream took the service to 3.2 GB without a cap.
 */
import { constants, inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { concat } from '../../der/der';
import type { PdfInputError } from '../../domain/errors';
import { tooComplex } from './limits';

const MiB = 1024 * 1024;

/**
 * Per stream: far above what a legitimate document decodes (xref and object streams are a few
 * MB even for a million objects, a page's content streams a few MB, a DSS CRL rarely over 10 MB;
 * image data is never decoded here), and low enough that a decode plus zlib's final copy stays
 * near 128 MiB.
 */
export const MAX_STREAM_DECODED = 64 * MiB;
/**
 * Per document, over all its readers (validation reads each signed revision too): four of the
 * largest streams, so the worker's heap keeps room for the objects themselves.
 */
export const MAX_DOCUMENT_DECODED = 256 * MiB;

/** Decoded bytes left for one document: every decode is charged, and none may exceed what is left. */
export class DecodeBudget {
  private used = 0;
  constructor(readonly total = MAX_DOCUMENT_DECODED, readonly perStream = MAX_STREAM_DECODED) {}

  /** The most one decoding step may produce now, and the refusal when it produces more. */
  limit(): { bytes: number; refusal: () => PdfInputError } {
    const left = Math.max(0, this.total - this.used);
    if (left >= this.perStream) return { bytes: this.perStream, refusal: () => tooComplex(`decoded stream data over ${this.perStream / MiB} MiB in one stream`) };
    return { bytes: left, refusal: () => tooComplex(`decoded stream data over ${this.total / MiB} MiB in the document`) };
  }

  charge(bytes: number): void {
    this.used += bytes;
  }
}

function numberIn(dict: PDFDict | undefined, key: string, fallback: number): number {
  const v = dict?.get(PDFName.of(key));
  return v instanceof PDFNumber ? v.asNumber() : fallback;
}

/** Undoes PNG row predictors (§7.4.4.4: Predictor >= 10, each row prefixed by its filter type). */
function unpredictPng(data: Uint8Array, columns: number, colors: number, bitsPerComponent: number): Uint8Array {
  const bpp = Math.max(1, Math.ceil((colors * bitsPerComponent) / 8));
  const rowLength = Math.ceil((columns * colors * bitsPerComponent) / 8);
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)]!;
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i]!;
      const left = i >= bpp ? out[dst + i - bpp]! : 0;
      const up = r > 0 ? out[dst - rowLength + i]! : 0;
      const upLeft = r > 0 && i >= bpp ? out[dst - rowLength + i - bpp]! : 0;
      let value: number;
      switch (type) {
        case 0: value = raw; break;
        case 1: value = raw + left; break;
        case 2: value = raw + up; break;
        case 3: value = raw + ((left + up) >> 1); break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          throw new Error(`unknown PNG predictor row type ${type}`);
      }
      out[dst + i] = value & 0xff;
    }
  }
  return out;
}

/** §7.4.4.4 Table 8 for FlateDecode and LZWDecode: 1 none, 2 TIFF (not supported), 10-15 PNG. */
function unpredict(data: Uint8Array, parms: PDFDict | undefined): Uint8Array {
  const predictor = numberIn(parms, 'Predictor', 1);
  if (predictor === 1) return data;
  if (predictor < 10) throw new Error(`TIFF predictor ${predictor} is not supported`);
  const columns = numberIn(parms, 'Columns', 1);
  const colors = numberIn(parms, 'Colors', 1);
  const bits = numberIn(parms, 'BitsPerComponent', 8);
  if (!Number.isSafeInteger(columns) || columns < 1 || !Number.isInteger(colors) || colors < 1 || colors > 32 || ![1, 2, 4, 8, 16].includes(bits)) {
    throw new Error(`bad predictor parameters (/Columns ${columns} /Colors ${colors} /BitsPerComponent ${bits})`);
  }
  return unpredictPng(data, columns, colors, bits);
}

function inflate(input: Uint8Array, budget: DecodeBudget): Uint8Array {
  const { bytes, refusal } = budget.limit();
  if (bytes === 0) throw refusal();
  let out: Buffer;
  try {
    // Z_SYNC_FLUSH tolerates a missing Adler-32 trailer, which some writers omit.
    out = inflateSync(input, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: bytes });
  } catch (e) {
    // ERR_BUFFER_TOO_LARGE (a RangeError): the output reached the cap; the work up to it is spent.
    if (e instanceof RangeError) {
      budget.charge(bytes);
      throw refusal();
    }
    throw e;
  }
  budget.charge(out.length);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

const PDFLIB_FILTERS = new Set(['LZWDecode', 'ASCII85Decode', 'ASCIIHexDecode', 'RunLengthDecode']);
const CHUNK = MiB;

/** One of pdf-lib's decoders over `input`, read a chunk at a time so its output is capped too. */
function decodeWithPdfLib(stream: PDFRawStream, filter: PDFName, parms: PDFDict | undefined, input: Uint8Array, budget: DecodeBudget): Uint8Array {
  const dict = PDFDict.withContext(stream.dict.context);
  dict.set(PDFName.of('Filter'), filter);
  if (parms) dict.set(PDFName.of('DecodeParms'), parms);
  const decoder = decodePDFRawStream(PDFRawStream.of(dict, input));
  const { bytes, refusal } = budget.limit();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    // Without forceClamped, getBytes gives a Uint8Array (pdf-lib types it as either).
    const chunk = decoder.getBytes(CHUNK) as Uint8Array;
    total += chunk.length;
    if (total > bytes) {
      budget.charge(total);
      throw refusal();
    }
    chunks.push(chunk);
    if (chunk.length < CHUNK) break;
  }
  budget.charge(total);
  return concat(chunks);
}

/**
 * The decoded contents of `stream`, every filter of its /Filter chain applied in order (§7.4.1)
 * with its /DecodeParms; throws Error on a filter or predictor we cannot undo, and PdfInputError
 * ("document too complex") when the output would pass the budget.
 */
export function decodeStreamContents(stream: PDFRawStream, budget: DecodeBudget): Uint8Array {
  const filter = stream.dict.get(PDFName.of('Filter'));
  if (filter === undefined) return stream.contents;
  const filters = filter instanceof PDFArray ? filter.asArray() : [filter];
  const parmsEntry = stream.dict.get(PDFName.of('DecodeParms'));
  let data = stream.contents;
  filters.forEach((f, i) => {
    if (!(f instanceof PDFName)) throw new Error('/Filter holds something other than a name');
    const p = parmsEntry instanceof PDFArray ? parmsEntry.get(i) : parmsEntry;
    const parms = p instanceof PDFDict ? p : undefined;
    const name = f.decodeText();
    if (name === 'FlateDecode') data = unpredict(inflate(data, budget), parms);
    else if (name === 'LZWDecode') data = unpredict(decodeWithPdfLib(stream, f, parms, data, budget), parms);
    else if (PDFLIB_FILTERS.has(name)) data = decodeWithPdfLib(stream, f, parms, data, budget);
    else throw new Error(`the ${name} filter is not supported here`);
  });
  return data;
}
