import type { PDFDict } from 'pdf-lib';
import type { PdfReader } from '../pdf';
import { findEmptySignatureField, findPage, type EmptySignatureField, type PageRef } from '../pdf';
import { placeStamp, type StampBox, type StampPosition } from './stamp-placement';

/** A design's stamp as far as placement cares: its page, its box and its conflict policy. */
export type PlacedStamp = StampBox & { page: 'first' | 'last' | number };

/**
 * Where a signature goes: into an empty field of the form, or as a new field on a page (with the
 * stamp's position there when a stamp is drawn: the design's box or the nearest free area).
 */
export type SignaturePlacement =
  | { kind: 'field'; field: EmptySignatureField }
  | { kind: 'page'; page: PageRef; stamp: StampPosition | null };

/**
 * The part of the decision that walks the page's content (stamp-placement.ts), as plain data: the
 * check before the 202 takes it and the job carries it to prepare, which does not walk the page
 * again. It depends on the document, the page and the design's box, never on the
 * stamp's text (stamp-layout.ts fits the text inside the box), so the text prepare fills in (the
 * signing date) cannot change it. A request resumed after a restart has none: prepare decides.
 */
export interface StampDecision {
  /** The page it was taken for (from 0). */
  pageIndex: number;
  /** The design's box it was taken for. */
  box: PlacedStamp;
  position: StampPosition;
}

/** Only what the decision depends on: a design's stamp has its lines and colours besides. */
function boxOf(stamp: PlacedStamp): PlacedStamp {
  return { page: stamp.page, x: stamp.x, y: stamp.y, width: stamp.width, height: stamp.height, ...(stamp.onConflict !== undefined ? { onConflict: stamp.onConflict } : {}) };
}

function sameBox(a: PlacedStamp, b: PlacedStamp): boolean {
  return a.page === b.page && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height && (a.onConflict ?? 'overlap') === (b.onConflict ?? 'overlap');
}

/**
 * The one decision of where the signature goes, taken by the check before 202 and by prepare
 * alike (so a refusal is a 422, never an ERROR after a 202). An empty signature field of the
 * form takes it (what readers expect of a form prepared for signing, §12.7.4.5), provided it has
 * room when a stamp is drawn (CONTRACT: visible whenever a design applies); the form's author
 * chose that place, so it is not moved. Otherwise a new field goes on the design's page, placed
 * by stamp-placement.ts, or on the first page when the signature is invisible.
 *
 * `decided`: the stamp's position the check before the 202 found for this document. The form and
 * the page tree are read again (cheap, and the field and page objects are needed anyway); the
 * page's content is not walked again when the decision is for the same page and box.
 */
export function placeSignature(reader: PdfReader, catalog: PDFDict, stamp: PlacedStamp | null, docMdp: null | 1 | 2 | 3, decided: StampDecision | null = null): SignaturePlacement {
  const field = findEmptySignatureField(reader, catalog, { needsArea: stamp !== null });
  if (field) return { kind: 'field', field };
  const page = findPage(reader, catalog, stamp ? stamp.page : 'first');
  if (!stamp) return { kind: 'page', page, stamp: null };
  const known = decided && decided.pageIndex === page.index && sameBox(decided.box, stamp) ? decided.position : null;
  return { kind: 'page', page, stamp: known ?? placeStamp(reader, page, stamp, docMdp) };
}

/** What of `placement` is carried to prepare: the stamp's position on its page, when there is one. */
export function stampDecisionOf(placement: SignaturePlacement, stamp: PlacedStamp | null): StampDecision | null {
  if (placement.kind !== 'page' || !placement.stamp || !stamp) return null;
  return { pageIndex: placement.page.index, box: boxOf(stamp), position: placement.stamp };
}
