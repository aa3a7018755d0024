import { PDFDocument, PDFName, StandardFonts, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfInputError } from '../../../../src/domain/errors';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { checkPdfForSigning } from '../../../../src/pades/sign/sign-check';
import { findPage } from '../../../../src/pades/pdf/signature-field';
import { placeStamp, type StampBox } from '../../../../src/pades/stamp/stamp-placement';
import { generateFullPage } from '../../../helpers/pdf-corpus';

const STAMP: StampBox = { x: 36, y: 36, width: 240, height: 72 };

async function onePage(draw: (doc: PDFDocument, page: ReturnType<PDFDocument['addPage']>) => Promise<void> | void): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  await draw(doc, page);
  return doc.save({ useObjectStreams: false });
}

function place(pdf: Uint8Array, stamp: StampBox, docMdp: null | 1 | 2 | 3 = null) {
  const reader = new PdfReader(pdf);
  return placeStamp(reader, findPage(reader, reader.catalog().dict, 'last'), stamp, docMdp);
}

async function footer(doc: PDFDocument, page: ReturnType<PDFDocument['addPage']>): Promise<void> {
  page.drawText('Page 1 of 1 - a footer across the foot of the page', { x: 56, y: 40, size: 10, font: await doc.embedFont(StandardFonts.Helvetica) });
}

describe('placeStamp', () => {
  it('keeps the design\'s box on a page with room there, and says nothing', async () => {
    const pdf = await onePage(async (doc, page) => page.drawText('Title', { x: 56, y: 780, size: 18, font: await doc.embedFont(StandardFonts.Helvetica) }));
    expect(place(pdf, STAMP)).toEqual({ kind: 'page', rect: { x1: 36, y1: 36, x2: 276, y2: 108 }, warnings: [] });
  });

  it('moves the box above a footer and says from where to where', async () => {
    const placed = place(await onePage(footer), STAMP);
    // Helvetica 10 pt: the footer's box reaches 40 + 10 = 50 (ascent taken as a full em); + 4 pt margin.
    expect(placed).toEqual({
      kind: 'page',
      rect: { x1: 36, y1: 54, x2: 276, y2: 126 },
      warnings: ['the stamp was moved from (36, 36) to (36, 54) on page 1: the design\'s box covered the page\'s content'],
    });
  });

  it('treats a drawing over half the page as background art, but a smaller one as content', async () => {
    const art = await onePage(async (doc, page) => {
      page.drawRectangle({ x: 0, y: 0, width: 595, height: 842, color: rgb(0.9, 0.9, 1) });
      await footer(doc, page);
    });
    expect(place(art, STAMP).rect).toEqual({ x1: 36, y1: 54, x2: 276, y2: 126 });
    const box = await onePage((_doc, page) => page.drawRectangle({ x: 20, y: 20, width: 300, height: 200, color: rgb(0.9, 0.9, 1) }));
    expect(place(box, STAMP).rect).toEqual({ x1: 36, y1: 224, x2: 276, y2: 296 });
  });

  it('keeps clear of annotations: an earlier signature\'s stamp is not covered by the next one', async () => {
    const pdf = await onePage((doc, page) => {
      const widget = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', Rect: [36, 36, 276, 108], F: 4 }));
      page.node.set(PDFName.of('Annots'), doc.context.obj([widget]));
    });
    expect(place(pdf, STAMP).rect).toEqual({ x1: 36, y1: 112, x2: 276, y2: 184 });
  });

  describe('when no free area fits', () => {
    it('"overlap", the default: the design\'s box, with a warning', async () => {
      const full = await generateFullPage();
      const warning = 'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content: the stamp is drawn over it at the design\'s place (design stamp.on_conflict "overlap")';
      expect(place(full, STAMP)).toEqual({ kind: 'page', rect: { x1: 36, y1: 36, x2: 276, y2: 108 }, warnings: [warning] });
      expect(place(full, { ...STAMP, onConflict: 'overlap' }).warnings).toEqual([warning]);
    });

    it('"new_page": a page of the same boxes, the stamp at the design\'s place; refused on a certified document', async () => {
      const full = await generateFullPage();
      expect(place(full, { ...STAMP, onConflict: 'new_page' })).toEqual({
        kind: 'new_page',
        rect: { x1: 36, y1: 36, x2: 276, y2: 108 },
        mediaBox: { x1: 0, y1: 0, x2: 595, y2: 842 },
        cropBox: null,
        rotate: 0,
        warnings: ['no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content: the stamp is on a signature page added at the end (design stamp.on_conflict "new_page")'],
      });
      for (const p of [2, 3] as const) {
        expect(() => place(full, { ...STAMP, onConflict: 'new_page' }, p)).toThrow(
          new PdfInputError(`no free area of page 1 fits the stamp (240 x 72 pt) without covering the page's content; the design's stamp.on_conflict "new_page" would add a page, which the document's certification (DocMDP P=${p}) forbids`),
        );
      }
    });

    it('"refuse": a PdfInputError (a 422 before the 202) that says why', async () => {
      const full = await generateFullPage();
      expect(() => place(full, { ...STAMP, onConflict: 'refuse' })).toThrow(
        new PdfInputError('no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content, and the design\'s stamp.on_conflict is "refuse"'),
      );
    });

    it('content it cannot read counts as a full page, and the message says so', async () => {
      const pdf = await onePage((doc, page) => page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream('not deflate', { Filter: 'FlateDecode' }))));
      expect(place(pdf, STAMP).warnings).toEqual([
        'the content of page 1 could not be read, so no free area could be found for the stamp: the stamp is drawn over it at the design\'s place (design stamp.on_conflict "overlap")',
      ]);
    });
  });
});

describe('checkPdfForSigning takes the same decision before the 202', () => {
  it('refuses with "refuse", and reports the warnings the job will give otherwise', async () => {
    const full = await generateFullPage();
    expect(() => checkPdfForSigning(full, { page: 'last', ...STAMP, onConflict: 'refuse' })).toThrow(PdfInputError);
    expect(checkPdfForSigning(full, { page: 'last', ...STAMP }).warnings).toHaveLength(1);
    expect(checkPdfForSigning(await onePage(footer), { page: 1, ...STAMP }).warnings).toEqual([
      'the stamp was moved from (36, 36) to (36, 54) on page 1: the design\'s box covered the page\'s content',
    ]);
    expect(checkPdfForSigning(full, null).warnings).toEqual([]);
  });
});
