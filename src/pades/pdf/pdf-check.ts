/**
 * The synchronous pre-check the HTTP route runs before answering 202 (CONTRACT: a bad PDF is a
 * 422, never an async ERROR). It reads only the trailer chain, the catalog and the few objects
 * under it (page tree root, AcroForm fields, /Perms), never every object.
 */
import { PDFArray, PDFDict, PDFName, PDFRef } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import { refuseRangeErrors } from './limits';
import { PdfReader } from './pdf-reader';
import type { XrefKind } from './xref';

export interface PdfInfo {
  /** Header version, or the catalog's /Version when that is later (ISO 32000-1 §7.7.2). */
  version: string;
  pageCount: number;
  xrefKind: XrefKind;
  /** Signature fields that hold a value (/FT /Sig with /V). */
  signatureCount: number;
  /** DocMDP permission of a certification signature (§12.8.2.2, Table 254); null when not certified. */
  docMdpPermission: null | 1 | 2 | 3;
  size: number;
}

const MAX_FIELD_NODES = 100_000;

/** Visits every terminal field of the AcroForm with its inherited /FT (§12.7.3.1). */
export function forEachField(
  reader: PdfReader,
  fields: PDFArray | undefined,
  visit: (field: PDFDict, fieldType: PDFName | undefined, ref: PDFRef | undefined) => void,
): void {
  let budget = MAX_FIELD_NODES;
  const seen = new Set<number>();
  const walk = (kids: PDFArray, inheritedType: PDFName | undefined): void => {
    for (const item of kids.asArray()) {
      if (item instanceof PDFRef) {
        if (seen.has(item.objectNumber)) continue;
        seen.add(item.objectNumber);
      }
      const field = reader.resolve(item);
      if (!(field instanceof PDFDict) || --budget < 0) continue;
      const ownType = field.get(PDFName.of('FT'));
      const type = ownType instanceof PDFName ? ownType : inheritedType;
      const children = reader.getArray(field, 'Kids');
      visit(field, type, item instanceof PDFRef ? item : undefined);
      if (children) walk(children, type);
    }
  };
  if (fields) walk(fields, undefined);
}

export function countSignatures(reader: PdfReader, catalog: PDFDict): number {
  const acroForm = reader.getDict(catalog, 'AcroForm');
  let count = 0;
  forEachField(reader, acroForm && reader.getArray(acroForm, 'Fields'), (field, type) => {
    if (type === PDFName.of('Sig') && field.get(PDFName.of('V')) !== undefined) count++;
  });
  return count;
}

/** §12.8.2.2.1: catalog /Perms /DocMDP -> signature dictionary -> /Reference -> /TransformParams /P. */
export function docMdpPermission(reader: PdfReader, catalog: PDFDict): null | 1 | 2 | 3 {
  const perms = reader.getDict(catalog, 'Perms');
  const sig = perms && reader.getDict(perms, 'DocMDP');
  if (!sig) return null;
  const references = reader.getArray(sig, 'Reference');
  for (const item of references?.asArray() ?? []) {
    const ref = reader.resolve(item);
    if (!(ref instanceof PDFDict) || reader.get(ref, 'TransformMethod') !== PDFName.of('DocMDP')) continue;
    const params = reader.getDict(ref, 'TransformParams');
    const p = params && reader.getNumber(params, 'P');
    // Table 254: P is optional and defaults to 2.
    return p === 1 || p === 3 ? p : 2;
  }
  return 2;
}

function headerVersion(pdf: Uint8Array): string {
  let v = '';
  for (let i = 5; i < Math.min(pdf.length, 12); i++) {
    const c = pdf[i]!;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2e) v += String.fromCharCode(c);
    else break;
  }
  return v;
}

/** Refuses what cannot be signed (CONTRACT: refusals are 422 with a reason) and reports the rest. */
export function inspectPdf(reader: PdfReader): PdfInfo & { catalogRef: PDFRef; catalog: PDFDict } {
  if (reader.xref.encrypt !== undefined) {
    throw new PdfInputError('the PDF is encrypted (/Encrypt in the trailer); encrypted PDFs cannot be signed');
  }
  const { ref, dict: catalog } = reader.catalog();
  const pages = reader.getDict(catalog, 'Pages');
  const count = pages && reader.getNumber(pages, 'Count');
  if (count === undefined) throw new PdfInputError('the catalog has no readable page tree (/Pages /Count)');
  const permission = docMdpPermission(reader, catalog);
  if (permission === 1) {
    throw new PdfInputError('the PDF is certified with DocMDP permission P=1: no change, not even a signature, is allowed');
  }
  let version = headerVersion(reader.pdf);
  const catalogVersion = catalog.get(PDFName.of('Version'));
  if (catalogVersion instanceof PDFName) {
    const v = catalogVersion.decodeText();
    if (parseFloat(v) > parseFloat(version || '0')) version = v;
  }
  return {
    version,
    pageCount: count,
    xrefKind: reader.xref.lastKind,
    signatureCount: countSignatures(reader, catalog),
    docMdpPermission: permission,
    size: reader.pdf.length,
    catalogRef: ref,
    catalog,
  };
}

export function checkPdf(pdf: Uint8Array): PdfInfo {
  return refuseRangeErrors(() => {
    const reader = new PdfReader(pdf);
    const { catalogRef: _ref, catalog: _catalog, ...info } = inspectPdf(reader);
    return info;
  });
}

