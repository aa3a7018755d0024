import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFContext, PDFRawStream, type PDFDict } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfInputError } from '../../../../src/domain/errors';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { DecodeBudget, decodeStreamContents, MAX_DOCUMENT_DECODED, MAX_STREAM_DECODED } from '../../../../src/pades/pdf/_stream-decode';
import { validatePdf } from '../../../../src/pades/validate/validate';
import { dssRepeatedBomb, flateBomb, flateBombSize } from '../../../helpers/hostile-pdfs';

const KiB = 1024;
const ctx = PDFContext.create();
const stream = (dict: Record<string, unknown>, data: Uint8Array) => PDFRawStream.of(ctx.obj(dict as never) as unknown as PDFDict, data);
const hex = (b: Uint8Array) => new Uint8Array(Buffer.from(`${Buffer.from(b).toString('hex')}>`, 'latin1'));

describe('decodeStreamContents', () => {
  const text = new Uint8Array(Buffer.from('BT /F1 12 Tf (Hello) Tj ET\n'.repeat(50)));

  it('applies every filter of the chain in order, with its own /DecodeParms (ISO 32000-1 §7.4.1)', () => {
    const budget = new DecodeBudget();
    expect(decodeStreamContents(stream({ Filter: 'FlateDecode' }, deflateSync(text)), budget)).toEqual(text);
    expect(decodeStreamContents(stream({ Filter: ['ASCIIHexDecode', 'FlateDecode'] }, hex(deflateSync(text))), budget)).toEqual(text);
    expect(decodeStreamContents(stream({ Filter: ['FlateDecode'] }, deflateSync(text)), budget)).toEqual(text);
    expect(decodeStreamContents(stream({}, text), budget)).toBe(text);
    // §7.4.4.4: PNG "Up" rows (type 2), 4 columns; parameters aligned with the filter array.
    const rows = Uint8Array.from([2, 1, 2, 3, 4, 2, 1, 1, 1, 1]);
    const s = stream({ Filter: ['ASCIIHexDecode', 'FlateDecode'], DecodeParms: [null, { Predictor: 12, Columns: 4 }] }, hex(deflateSync(rows)));
    expect([...decodeStreamContents(s, budget)]).toEqual([1, 2, 3, 4, 2, 3, 4, 5]);
  });

  it('refuses what it cannot undo with a plain Error (the caller reports the stream unreadable)', () => {
    const budget = new DecodeBudget();
    expect(() => decodeStreamContents(stream({ Filter: 'DCTDecode' }, text), budget)).toThrow('the DCTDecode filter is not supported here');
    const tiff = stream({ Filter: 'FlateDecode', DecodeParms: { Predictor: 2 } }, deflateSync(text));
    expect(() => decodeStreamContents(tiff, budget)).toThrow('TIFF predictor 2 is not supported');
    const silly = stream({ Filter: 'FlateDecode', DecodeParms: { Predictor: 12, Columns: -3 } }, deflateSync(text));
    expect(() => decodeStreamContents(silly, budget)).toThrow('bad predictor parameters');
  });

  it('stops FlateDecode at the stream cap: a refusal naming it, not the output', () => {
    const budget = new DecodeBudget(1024 * KiB, 64 * KiB);
    expect(decodeStreamContents(stream({ Filter: 'FlateDecode' }, deflateSync(Buffer.alloc(64 * KiB))), budget)).toHaveLength(64 * KiB);
    const over = stream({ Filter: 'FlateDecode' }, deflateSync(Buffer.alloc(64 * KiB + 1)));
    const error = (() => {
      try {
        decodeStreamContents(over, budget);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(PdfInputError);
    expect((error as Error).message).toBe('document too complex: decoded stream data over 0.0625 MiB in one stream');
  });

  it('caps pdf-lib\'s decoders too (RunLengthDecode: 2 bytes give 128)', () => {
    const runs = new Uint8Array(2 * 1024).fill(0x81); // 129: repeat the next byte 128 times (§7.4.5)
    const budget = new DecodeBudget(1024 * KiB, 64 * KiB);
    expect(() => decodeStreamContents(stream({ Filter: 'RunLengthDecode' }, runs), budget)).toThrow('decoded stream data over 0.0625 MiB in one stream');
    const small = Uint8Array.from([0x81, 0x41, 0x80]);
    expect(Buffer.from(decodeStreamContents(stream({ Filter: 'RunLengthDecode' }, small), budget)).toString('latin1')).toBe('A'.repeat(128));
  });

  it('charges every decode to the document: past the total, the next one is refused', () => {
    const budget = new DecodeBudget(100 * KiB, 64 * KiB);
    const sixty = stream({ Filter: 'FlateDecode' }, deflateSync(Buffer.alloc(60 * KiB)));
    expect(decodeStreamContents(sixty, budget)).toHaveLength(60 * KiB);
    expect(() => decodeStreamContents(sixty, budget)).toThrow('document too complex: decoded stream data over 0.09765625 MiB in the document');
  });

  it('has the caps the report names: 64 MiB a stream, 256 MiB a document', () => {
    expect([MAX_STREAM_DECODED, MAX_DOCUMENT_DECODED]).toEqual([64 * 1024 * KiB, 256 * 1024 * KiB]);
  });
});

describe('the reader decodes each stream once', () => {
  it('a /DSS listing one 19 MiB stream 15 times costs 19 MiB of the 256, not 285 (5.2 GB before issue 15)', () => {
    const mb = 0.02;
    const times = 15;
    expect(flateBombSize(mb) * times).toBeGreaterThan(MAX_DOCUMENT_DECODED);
    expect(flateBombSize(mb)).toBeLessThan(MAX_STREAM_DECODED);
    const pdf = dssRepeatedBomb(mb, times);
    const t0 = performance.now();
    expect(validatePdf(pdf, { trustAnchors: [], now: new Date() })).toEqual({ valid: false, signatures: [], problems: [] });
    expect(performance.now() - t0).toBeLessThan(2_000);
    const reader = new PdfReader(pdf);
    const certs = reader.getArray(reader.getDict(reader.catalog().dict, 'DSS')!, 'Certs') as PDFArray;
    const first = reader.decodeStream(reader.resolve(certs.get(0)) as PDFRawStream);
    expect(reader.decodeStream(reader.resolve(certs.get(1)) as PDFRawStream)).toBe(first);
  });
});

describe("the vendor bundle's pako (build/vendor/pako-zlib.cjs)", () => {
  it('inflates under the per-stream cap: a 100 MB bomb stops at 64 MiB', () => {
    const shim = createRequire(import.meta.url)('../../../../build/vendor/pako-zlib.cjs') as { inflate: (d: Uint8Array) => Uint8Array };
    expect(flateBombSize(0.1)).toBeGreaterThan(MAX_STREAM_DECODED);
    const t0 = performance.now();
    expect(() => shim.inflate(flateBomb(0.1))).toThrow(RangeError);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(shim.inflate(deflateSync(Buffer.alloc(MAX_STREAM_DECODED)))).toHaveLength(MAX_STREAM_DECODED);
  });
});
