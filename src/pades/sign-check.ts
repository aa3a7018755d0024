import { PDFArray, PDFDict, PDFName } from 'pdf-lib';
import { PdfReader } from './_pdf-reader';
import { inspectPdf, type PdfInfo } from './pdf-check';
import { findEmptySignatureField, findPage, uniqueFieldName } from './signature-field';

/**
 * checkPdf plus every object of the input that preparePades will read: the page tree down to the
 * page the widget goes on, that page's /Annots, and the AcroForm's fields. CONTRACT: "a bad PDF
 * is a 422, never an async ERROR" — a broken object there is refused before 202 instead of
 * failing the request later (a fuzz of corrupted PDFs found such ERRORs).
 */
export function checkPdfForSigning(pdf: Uint8Array, page: 'first' | 'last' | number): PdfInfo {
  const reader = new PdfReader(pdf);
  const { catalogRef: _ref, catalog, ...info } = inspectPdf(reader);
  // Signing goes into an empty signature field when the form has one (prepare.ts), else onto `page`.
  const empty = findEmptySignatureField(reader, catalog, { needsArea: true });
  const target = findPage(reader, catalog, empty ? 'first' : page);
  reader.resolve(target.dict.get(PDFName.of('Annots')));
  const acroForm = reader.resolve(catalog.get(PDFName.of('AcroForm')));
  if (acroForm instanceof PDFDict) {
    const fields = reader.resolve(acroForm.get(PDFName.of('Fields')));
    uniqueFieldName(reader, fields instanceof PDFArray ? fields : undefined);
  }
  return info;
}
