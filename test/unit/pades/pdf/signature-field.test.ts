import { describe, it, expect } from 'vitest';
import { PDFContext } from 'pdf-lib';
import { buildSignatureDictionary, findPage, pdfDate, pdfTextString, uniqueFieldName } from '../../../../src/pades/pdf/signature-field';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { PdfInputError } from '../../../../src/domain/errors';
import { makeNestedPageTreePdf, makePdf, qpdf } from '../_pdf-fixtures';

describe('signature field pieces', () => {
  it('encodes text strings in PDFDocEncoding when possible, else UTF-16BE with BOM', () => {
    expect(pdfTextString('Plain (a\\b)').toString()).toBe('(Plain \\(a\\\\b\\))');
    expect(pdfTextString('Zürich').toString()).toBe('(Z\\374rich)');
    expect(pdfTextString('Ωx').toString()).toBe('<FEFF03A90078>');
    expect(pdfTextString('€').toString()).toBe('<FEFF20AC>');
  });

  it('writes /M as a UTC PDF date', () => {
    expect(pdfDate(new Date('2026-03-04T05:06:07.890Z'))).toBe("D:20260304050607+00'00'");
  });

  it('builds the PAdES signature dictionary with fixed-width placeholders', () => {
    const dict = buildSignatureDictionary(PDFContext.create(), {
      signingTime: new Date('2026-11-22T10:00:00Z'), reason: 'OK', location: null, signerName: 'Ana', contentsHexLength: 4,
    });
    const text = Buffer.alloc(dict.sizeInBytes());
    dict.copyBytesInto(text, 0);
    expect(text.toString('latin1')).toBe(
      "<<\n/Type /Sig\n/Filter /Adobe.PPKLite\n/SubFilter /ETSI.CAdES.detached\n" +
        '/ByteRange [0000000000 0000000000 0000000000 0000000000]\n/Contents <0000>\n' +
        "/M (D:20261122100000+00'00')\n/Reason (OK)\n/Name (Ana)\n>>",
    );
  });

  it('finds pages through a nested page tree and refuses one beyond the count', async () => {
    // qpdf keeps pdf-lib's flat tree; 30 pages still exercise /Count skipping over leaves.
    const pdf = qpdf(await makePdf({ pages: 30 }), ['--object-streams=generate']);
    const reader = new PdfReader(pdf);
    const { dict: catalog } = reader.catalog();
    expect(findPage(reader, catalog, 'first').index).toBe(0);
    expect(findPage(reader, catalog, 'last').index).toBe(29);
    expect(findPage(reader, catalog, 17).index).toBe(16);
    expect(() => findPage(reader, catalog, 31)).toThrow(PdfInputError);
    expect(() => findPage(reader, catalog, 31)).toThrow('stamp page 31 is beyond the page count (30)');
    expect(() => findPage(reader, catalog, 0)).toThrow('stamp page must be "first", "last" or a page number from 1, got 0');
  });

  it('descends a nested page tree by /Count to the right leaf', () => {
    const reader = new PdfReader(makeNestedPageTreePdf());
    const { dict: catalog } = reader.catalog();
    expect([1, 2, 3, 4, 5].map((n) => findPage(reader, catalog, n).ref.objectNumber)).toEqual([10, 11, 12, 13, 14]);
    expect(findPage(reader, catalog, 'last').ref.objectNumber).toBe(14);
  });

  it('names the first free SignatureN', async () => {
    const reader = new PdfReader(await makePdf());
    expect(uniqueFieldName(reader, undefined)).toBe('Signature1');
  });
});
