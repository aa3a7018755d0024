import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { inspectPdf } from '../../../../src/pades/pdf/pdf-check';
import { placeSignature } from '../../../../src/pades/stamp/placement';
import { checkPdfForSigning } from '../../../../src/pades/sign/sign-check';

/** Three pages; page 2 carries an empty signature field with the given /Rect. */
async function formWithField(rect: number[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([612, 792]);
  const page = doc.addPage([612, 792]);
  doc.addPage([612, 792]);
  const field = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', T: PDFString.of('Sig'), Rect: rect, F: 4, P: page.ref }));
  page.node.set(PDFName.of('Annots'), doc.context.obj([field]));
  doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [field] }));
  return doc.save({ useObjectStreams: false });
}

const box = (page: 'first' | 'last' | number) => ({ page, x: 36, y: 36, width: 200, height: 60 });

function place(pdf: Uint8Array, stampPage: 'first' | 'last' | number | null) {
  const reader = new PdfReader(pdf);
  return placeSignature(reader, inspectPdf(reader).catalog, stampPage === null ? null : box(stampPage), null);
}

describe('placeSignature: one decision of where the signature goes', () => {
  it('an empty field with room takes the signature, visible or not', async () => {
    const pdf = await formWithField([400, 700, 550, 740]);
    expect(place(pdf, 'last')).toMatchObject({ kind: 'field', field: { rect: [400, 700, 550, 740], name: 'Sig' } });
    expect(place(pdf, null)).toMatchObject({ kind: 'field' });
  });

  it('a zero-size field takes only an invisible signature; a stamp gets a new field on its page', async () => {
    const pdf = await formWithField([0, 0, 0, 0]);
    expect(place(pdf, null)).toMatchObject({ kind: 'field' });
    const visible = place(pdf, 'last');
    expect(visible.kind === 'page' && visible.page.index).toBe(2);
    const numbered = place(pdf, 2);
    expect(numbered.kind === 'page' && numbered.page.index).toBe(1);
  });

  it('without a form: the design\'s page, or the first page when invisible', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 3; i += 1) doc.addPage();
    const pdf = await doc.save();
    const invisible = place(pdf, null);
    expect(invisible.kind === 'page' && invisible.page.index).toBe(0);
    const last = place(pdf, 'last');
    expect(last.kind === 'page' && last.page.index).toBe(2);
  });

  it('the check before 202 refuses what prepare would refuse: a stamp page beyond the document', async () => {
    const pdf = await formWithField([0, 0, 0, 0]);
    expect(() => checkPdfForSigning(pdf, box(7))).toThrow('stamp page 7 is beyond the page count (3)');
    expect(() => checkPdfForSigning(pdf, null)).not.toThrow();
  });
});
