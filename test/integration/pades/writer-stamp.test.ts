import { describe, it, expect, beforeAll } from 'vitest';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { verifyPades } from '../../../src/pades/sign/verify';
import type { StampSpec } from '../../../src/domain/pades';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { latin1Text, makeNestedPageTreePdf, makePdf, pdfsig, pdfsigSummary, qpdf, qpdfCheck, runTool, tmpFile } from '../../unit/pades/_pdf-fixtures';

const stamp = (page: StampSpec['page']): StampSpec => ({
  page, x: 300, y: 50, width: 220, height: 60,
  lines: [{ text: 'Signed by Test Signer', size: 10 }, { text: 'Zürich — 2026-11-22', size: 8 }],
});

describe('visible signature with the stamp appearance', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'p256' });
  });

  for (const [which, expectedIndex] of [['last', 2], [2, 1], ['first', 0]] as const) {
    it(`puts the widget on page ${String(which)} with the stamp form as /AP /N`, async () => {
      const input = qpdf(await makePdf({ pages: 3 }), ['--object-streams=generate']);
      const prepared = await preparePades({ pdf: input, certificateChain: pki.chain, signingTime: new Date('2026-11-22T10:00:00Z'), stamp: stamp(which) });
      const signed = finishPades(prepared, signDigest(pki.signerKeyPem, 'p256', prepared.digest));
      expect(Buffer.from(signed.subarray(0, input.length)).equals(Buffer.from(input))).toBe(true);

      const doc = await PDFDocument.load(signed, { updateMetadata: false });
      const pages = doc.getPages();
      pages.forEach((page, i) => {
        const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
        expect(annots?.size() ?? 0).toBe(i === expectedIndex ? 1 : 0);
      });
      const widget = pages[expectedIndex]!.node.lookup(PDFName.of('Annots'), PDFArray).lookup(0, PDFDict);
      expect(widget.lookup(PDFName.of('Rect'), PDFArray).toString()).toBe('[ 300 50 520 110 ]');
      expect(widget.get(PDFName.of('P'))).toBe(pages[expectedIndex]!.ref);
      const form = widget.lookup(PDFName.of('AP'), PDFDict).lookup(PDFName.of('N'));
      expect(form).toBeInstanceOf(PDFRawStream);
      const formDict = (form as PDFRawStream).dict;
      expect(formDict.get(PDFName.of('Subtype'))).toBe(PDFName.of('Form'));
      expect(formDict.lookup(PDFName.of('BBox'), PDFArray).toString()).toBe('[ 0 0 220 60 ]');
      const font = formDict.lookup(PDFName.of('Resources'), PDFDict).lookup(PDFName.of('Font'), PDFDict);
      expect(font.values()[0]).toBeInstanceOf(PDFRef);

      expect(verifyPades(signed).fieldName).toBe('Signature1');
      expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
      expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
      // The stamp's text is really drawn: mutool renders the annotation appearance as text.
      const text = runTool('mutool', ['draw', '-F', 'txt', tmpFile('stamp.pdf', signed), String(expectedIndex + 1)]);
      expect(text).toContain('Signed by Test Signer');
    });
  }

  it('finds page 4 of a nested page tree and rewrites only that page', async () => {
    const input = makeNestedPageTreePdf();
    const prepared = await preparePades({ pdf: input, certificateChain: pki.chain, signingTime: new Date('2026-11-22T10:00:00Z'), stamp: stamp(4) });
    const signed = finishPades(prepared, signDigest(pki.signerKeyPem, 'p256', prepared.digest));
    const tail = latin1Text(signed.subarray(input.length));
    expect(tail).toMatch(/\n13 0 obj\n<<\n\/Type \/Page\n\/Parent 4 0 R\n\/Annots \[ \d+ 0 R \]\n>>/);
    expect(tail).toMatch(/\/P 13 0 R\n/);
    expect(tail).not.toMatch(/\n1[0124] 0 obj/);
    expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
    expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
  });
});
