import { describe, it, expect } from 'vitest';
import { PDFContext, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { writeIncrementalUpdate } from '../../../../src/pades/pdf/incremental-writer';
import { readXrefChain } from '../../../../src/pades/pdf/xref';
import { checkPdf } from '../../../../src/pades/pdf/pdf-check';
import { latin1Text, makeNestedPageTreePdf, makePdf, qpdfCheck } from '../_pdf-fixtures';

describe('writeIncrementalUpdate', () => {
  it('appends objects and a table chained by /Prev, input as exact prefix', async () => {
    const pdf = await makePdf();
    const xref = readXrefChain(pdf);
    const ctx = PDFContext.create();
    const ref = PDFRef.of(xref.size, 0);
    const { bytes, offsets } = writeIncrementalUpdate(pdf, xref, [{ ref, object: ctx.obj({ Type: 'Test' }) }]);
    expect(Buffer.from(bytes.subarray(0, pdf.length)).equals(Buffer.from(pdf))).toBe(true);
    // pdf-lib ends its files with "%%EOF" and no EOL: the writer adds one before the update.
    expect(latin1Text(pdf).endsWith('%%EOF')).toBe(true);
    const tail = latin1Text(bytes.subarray(pdf.length));
    const at = pdf.length + 1;
    expect(offsets.get(xref.size)).toBe(at);
    expect(tail.startsWith(`\n${xref.size} 0 obj\n<<\n/Type /Test\n>>\nendobj\nxref\n${xref.size} 1\n${String(at).padStart(10, '0')} 00000 n\r\n`)).toBe(true);
    expect(tail).toContain(`/Size ${xref.size + 1}`);
    expect(tail).toContain(`/Prev ${xref.startxref}`);
    expect(tail.endsWith(`startxref\n${pdf.length + tail.indexOf('xref\n')}\n%%EOF\n`)).toBe(true);
    const again = readXrefChain(bytes);
    expect(again.sectionCount).toBe(2);
    expect(again.entries.get(xref.size)).toEqual({ type: 'offset', offset: at, generation: 0 });
    expect(qpdfCheck(bytes)).toContain('No syntax or stream encoding errors found');
  });

  it('writes a compressed xref stream after a stream, listing itself, without /XRefStm', async () => {
    const pdf = await makePdf({ objectStreams: true });
    const xref = readXrefChain(pdf);
    const reader = new PdfReader(pdf);
    const { ref: catalogRef, dict: catalog } = reader.catalog();
    catalog.set(PDFName.of('Lang'), PDFString.of('x'));
    const { bytes, offsets } = writeIncrementalUpdate(pdf, xref, [{ ref: catalogRef, object: catalog }]);
    const again = readXrefChain(bytes);
    expect(again.lastKind).toBe('stream');
    expect(again.size).toBe(xref.size + 1);
    expect(again.entries.get(catalogRef.objectNumber)).toEqual({ type: 'offset', offset: offsets.get(catalogRef.objectNumber), generation: 0 });
    expect(again.entries.get(xref.size)).toEqual({ type: 'offset', offset: offsets.get(xref.size), generation: 0 });
    expect(again.trailer.get(PDFName.of('XRefStm'))).toBeUndefined();
    expect(checkPdf(bytes).xrefKind).toBe('stream');
    expect(new PdfReader(bytes).catalog().dict.get(PDFName.of('Lang'))?.toString()).toBe('(x)');
    expect(qpdfCheck(bytes)).toContain('No syntax or stream encoding errors found');
  });

  it('keeps a binary literal-string ID[0] byte for byte', () => {
    const id0 = '\x8a\xff\x00\x41\xe9';
    const text = latin1Text(makeNestedPageTreePdf()).replace('/Root 1 0 R >>', `/Root 1 0 R /ID [(${id0}) (${id0})] >>`);
    const pdf = new Uint8Array(Buffer.from(text, 'latin1'));
    const xref = readXrefChain(pdf);
    const { bytes } = writeIncrementalUpdate(pdf, xref, [{ ref: PDFRef.of(15, 0), object: PDFContext.create().obj({}) }]);
    const tail = latin1Text(bytes.subarray(pdf.length));
    expect(tail).toMatch(new RegExp(`/ID \\[ \\(${id0.replace(/[()\\]/g, '\\$&')}\\) <[0-9a-f]{32}> \\]`));
    expect(bytes.length - pdf.length).toBe(Buffer.byteLength(tail, 'latin1'));
  });
});
