/**
 * Recovery of damaged files (issue 17), from source: the scan over the bytes (_xref-recovery.ts)
 * and the reader that uses it (`{ recover: true }`, or `{ damage }`). Signing readers
 * keep refusing broken cross-reference data (CONTRACT).
 */
import { PDFDict, PDFName, PDFRef } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfInputError } from '../../../../src/domain/errors';
import { checkPdf } from '../../../../src/pades/pdf/pdf-check';
import { TooComplexError } from '../../../../src/pades/pdf/limits';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { scanObjects } from '../../../../src/pades/pdf/_xref-recovery';
import { MAX_XREF_ENTRIES, newXrefScope } from '../../../../src/pades/pdf/xref';
import { appendCatalogUpdate, latin1Text, makePdf, patchText } from '../_pdf-fixtures';

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

/** The last startxref moved by `delta`. */
function moveStartxref(pdf: Uint8Array, delta: number): Uint8Array {
  const t = latin1Text(pdf);
  const at = t.lastIndexOf('startxref');
  const m = /^startxref(\s+)(\d+)/.exec(t.slice(at))!;
  return bytes(t.slice(0, at) + `startxref${m[1]}${Number(m[2]) + delta}` + t.slice(at + m[0].length));
}

describe('the scan for objects', () => {
  it('finds headers, trailers and the objects naming /XRef, /ObjStm and /Catalog, and skips stream data', () => {
    const pdf = bytes([
      '%PDF-1.7\n',
      '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
      '2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n',
      '3 0 obj\n<< /Length 30 >>\nstream\n9 0 obj << /Type /Catalog >>\nendstream\nendobj\n',
      '12 3 obj\n(not endobj 4 0 obj inside a string is still found)\nendobj\n',
      'trailer\n<< /Root 1 0 R /Size 13 >>\n',
      '5 0 obj << /Type /XRef /W [1 1 1] /Size 1 /Length 0 >>\nstream\n\nendstream\nendobj\n',
    ].join(''));
    const scan = scanObjects(pdf, newXrefScope());
    const headers: number[][] = [];
    for (let i = 0; i < scan.headers.length; i += 3) headers.push([scan.headers[i + 1]!, scan.headers[i + 2]!]);
    // 9 0 obj lies in stream data; "4 0 obj" in a string is a header by bytes (no parse is made here).
    expect(headers).toEqual([[1, 0], [2, 0], [3, 0], [12, 3], [4, 0], [5, 0]]);
    expect(scan.trailers.map((t) => latin1Text(pdf).slice(t, t + 10))).toEqual(['\n<< /Root ']);
    // The /Catalog in stream 3's data is not counted.
    expect(scan.named.Catalog).toEqual([scan.headers[0]]);
    expect(scan.named.XRef).toEqual([scan.headers[15]]);
    expect(scan.named.ObjStm).toEqual([]);
  });

  it('rejects what only looks like a header: endobj, digits glued to a name, a generation over 65535', () => {
    const scan = scanObjects(bytes('%PDF-1.7\nendobj\n/A1 0 obj\n1 99999 obj\n7 0 objx\n8 0 obj\n'), newXrefScope());
    expect(scan.headers).toEqual([latin1Text(bytes('%PDF-1.7\nendobj\n/A1 0 obj\n1 99999 obj\n7 0 objx\n')).length, 8, 0]);
  });

  it('counts every header against the document\'s cross-reference entries (issue 15 bound)', () => {
    const scope = newXrefScope();
    scope.entriesRead = MAX_XREF_ENTRIES - 2;
    expect(() => scanObjects(bytes('%PDF-1.7\n1 0 obj\n2 0 obj\n3 0 obj\n'), scope)).toThrow(TooComplexError);
  });

  it('stays linear: 16 MB of "obj" words and stream keywords scanned in well under a second', () => {
    const pdf = bytes(`%PDF-1.7\n${'obj stream endobj '.repeat(1_000_000)}`);
    const started = process.hrtime.bigint();
    const scan = scanObjects(pdf, newXrefScope());
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(scan.headers).toEqual([]);
    expect(ms).toBeLessThan(1_000);
  });
});

describe('a reader that recovers', () => {
  it('a startxref 10 bytes off: signing refuses, a recovering reader reads the catalog and names the damage', async () => {
    const pdf = moveStartxref(await makePdf({ pages: 2 }), 10);
    expect(() => new PdfReader(pdf)).toThrow(/^cross-reference data is broken: no cross-reference section at byte \d+$/);
    expect(() => checkPdf(pdf)).toThrow(PdfInputError);
    const reader = new PdfReader(pdf, { recover: true });
    expect(reader.catalog().dict.get(PDFName.of('Type'))).toBe(PDFName.of('Catalog'));
    expect(reader.damage).toEqual([expect.stringMatching(/^cross-reference data is broken: no cross-reference section at byte \d+; the objects were found by scanning the file$/)]);
  });

  it('objects in object streams (§7.5.7) are found through the streams the scan decodes', async () => {
    const pdf = moveStartxref(await makePdf({ pages: 2, objectStreams: true }), -5);
    const reader = new PdfReader(pdf, { recover: true });
    const pages = reader.getDict(reader.catalog().dict, 'Pages');
    expect(pages && reader.getNumber(pages, 'Count')).toBe(2);
    expect([...reader.xref.entries.values()].filter((e) => e.type === 'compressed').length).toBeGreaterThan(3);
  });

  it('/Prev 0: the newest catalog of the updated file, not the first', async () => {
    // A line end after %%EOF: an object header glued to it would be part of that comment (§7.2.3).
    const base = new Uint8Array([...(await makePdf()), 0x0a]);
    const updated = appendCatalogUpdate(base);
    const prev = latin1Text(updated).match(/\/Prev (\d+)/)![1]!;
    const broken = patchText(updated, `/Prev ${prev}`, `/Prev ${'0'.padStart(prev.length, ' ')}`);
    const reader = new PdfReader(broken, { recover: true });
    const rootNum = (reader.xref.root as PDFRef).objectNumber;
    expect(reader.xref.entries.get(rootNum)).toEqual({ type: 'offset', offset: base.length, generation: 0 });
    expect(reader.damage[0]).toMatch(/no cross-reference section at byte 0; the objects were found by scanning the file$/);
  });

  it('a table entry that misses its object: read where the scan found it, the damage named; without recovery refused', async () => {
    const pdf = await makePdf();
    const t = latin1Text(pdf);
    const catalogNum = Number(t.match(/\/Root (\d+) 0 R/)![1]);
    const offset = t.indexOf(`\n${catalogNum} 0 obj`) + 1;
    const wrong = patchText(pdf, `${String(offset).padStart(10, '0')} 00000 n`, `${String(offset + 3).padStart(10, '0')} 00000 n`);
    expect(() => new PdfReader(wrong).catalog()).toThrow(/is not at byte|is unreadable/);
    const reader = new PdfReader(wrong, { recover: true });
    expect(reader.catalog().dict).toBeInstanceOf(PDFDict);
    expect(reader.damage).toEqual([`cross-reference data is broken: object ${catalogNum} 0 is not at byte ${offset + 3}; read at byte ${offset}, where a scan of the file found it`]);
  });

  it('no catalog anywhere: a PdfInputError saying the scan found none', () => {
    const pdf = bytes('%PDF-1.7\n1 0 obj\n<< /A 1 >>\nendobj\n%%EOF\n');
    expect(() => new PdfReader(pdf, { recover: true })).toThrow('cross-reference data is broken: no startxref near the end of the file; scanning the file for objects found no document catalog (no trailer with /Root, no /Type /Catalog)');
  });

  it('a reader given a damage list recovers and fills it; one without refuses', async () => {
    const pdf = moveStartxref(await makePdf(), 10);
    const damage: string[] = [];
    const reader = new PdfReader(pdf, { damage });
    expect(reader.catalog().dict).toBeInstanceOf(PDFDict);
    expect(damage).toHaveLength(1);
    expect(() => new PdfReader(pdf)).toThrow(PdfInputError);
  });
});
