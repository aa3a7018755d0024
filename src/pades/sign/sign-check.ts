import { PDFArray, PDFDict, PDFName } from 'pdf-lib';
import { refuseRangeErrors } from '../pdf';
import { PdfReader } from '../pdf';
import { inspectPdf, type PdfInfo } from '../pdf';
import { placeSignature, stampDecisionOf, type PlacedStamp, type StampDecision } from '../stamp';
import { uniqueFieldName } from '../pdf';
import { preparePades } from './prepare';
import type { PadesPrepareInput, PreparedPades } from './types';

/**
 * What the check before the 202 found: the document's facts, the placement's warnings, and the
 * stamp's position (null for an invisible signature or an empty field of the form), which the
 * job carries to prepare (placement.ts StampDecision).
 */
export type SigningCheck = PdfInfo & { warnings: string[]; placement: StampDecision | null };

/**
 * checkPdf plus every object of the input that preparePades will read: the page tree down to the
 * page the widget goes on, that page's /Annots, and the AcroForm's fields. CONTRACT: "a bad PDF
 * is a 422, never an async ERROR" — a broken object there is refused before 202 instead of
 * failing the request later (a fuzz of corrupted PDFs found such ERRORs).
 */
export function checkPdfForSigning(pdf: Uint8Array, stamp: PlacedStamp | null): SigningCheck {
  return refuseRangeErrors(() => readForSigning(new PdfReader(pdf), stamp));
}

/**
 * The check before the 202 and prepare in one go, on one reader: for a small document
 * the job then starts at its signature. The objects the check read are not parsed again, and
 * they count once against the document's budgets, as they did for the check alone.
 */
export async function checkAndPreparePades(input: PadesPrepareInput, stamp: PlacedStamp | null): Promise<{ check: SigningCheck; prepared: PreparedPades }> {
  const reader = new PdfReader(input.pdf);
  const check = refuseRangeErrors(() => readForSigning(reader, stamp));
  const prepared = await preparePades({ ...input, placement: check.placement }, reader);
  return { check, prepared };
}

function readForSigning(reader: PdfReader, stamp: PlacedStamp | null): SigningCheck {
  const { catalogRef: _ref, catalog, ...info } = inspectPdf(reader);
  // The same decision prepare.ts takes, stamp position included: a design whose stamp fits
  // nowhere and says "refuse" is a 422 here, never an ERROR after the 202. A new field also
  // rewrites its page's /Annots, and a signature page the page tree's root and /Kids.
  const placement = placeSignature(reader, catalog, stamp, info.docMdpPermission);
  if (placement.kind === 'page') reader.resolve(placement.page.dict.get(PDFName.of('Annots')));
  if (placement.kind === 'page' && placement.stamp?.kind === 'new_page') {
    const root = reader.getDict(catalog, 'Pages');
    if (root) reader.resolve(root.get(PDFName.of('Kids')));
  }
  const acroForm = reader.resolve(catalog.get(PDFName.of('AcroForm')));
  if (acroForm instanceof PDFDict) {
    const fields = reader.resolve(acroForm.get(PDFName.of('Fields')));
    uniqueFieldName(reader, fields instanceof PDFArray ? fields : undefined);
  }
  return { ...info, warnings: placement.kind === 'page' ? placement.stamp?.warnings ?? [] : [], placement: stampDecisionOf(placement, stamp) };
}
