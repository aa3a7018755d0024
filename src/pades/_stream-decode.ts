/**
 * Decodes the two kinds of stream we must read ourselves: cross-reference streams (ISO 32000-1
 * §7.5.8) and object streams (§7.5.7). Both are almost always FlateDecode, often with the PNG
 * predictors of §7.4.4.4 (Table 8), which pdf-lib's decoder does not apply; other filters go to
 * pdf-lib's decoder.
 */
import { inflateSync, constants } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, decodePDFRawStream } from 'pdf-lib';

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

/** Returns the decoded contents of a stream; throws on filters or predictors we cannot undo. */
export function decodeStreamContents(stream: PDFRawStream): Uint8Array {
  const filter = stream.dict.get(PDFName.of('Filter'));
  const filterName =
    filter instanceof PDFName ? filter : filter instanceof PDFArray && filter.size() === 1 ? filter.get(0) : undefined;
  if (filter === undefined) return stream.contents;
  if (filterName !== PDFName.of('FlateDecode')) {
    return decodePDFRawStream(stream).decode();
  }
  let parms = stream.dict.get(PDFName.of('DecodeParms'));
  if (parms instanceof PDFArray) parms = parms.get(0);
  const dict = parms instanceof PDFDict ? parms : undefined;
  // Z_SYNC_FLUSH tolerates a missing Adler-32 trailer, which some writers omit.
  const inflated = new Uint8Array(inflateSync(stream.contents, { finishFlush: constants.Z_SYNC_FLUSH }));
  const predictor = numberIn(dict, 'Predictor', 1);
  if (predictor === 1) return inflated;
  if (predictor < 10) throw new Error(`TIFF predictor ${predictor} is not supported`);
  return unpredictPng(
    inflated,
    numberIn(dict, 'Columns', 1),
    numberIn(dict, 'Colors', 1),
    numberIn(dict, 'BitsPerComponent', 8),
  );
}
