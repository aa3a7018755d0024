import type { PDFDict } from 'pdf-lib';
import type { PdfReader } from './_pdf-reader';
import { findEmptySignatureField, findPage, type EmptySignatureField, type PageRef } from './signature-field';
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
 * The one decision of where the signature goes, taken by the check before 202 and by prepare
 * alike (so a refusal is a 422, never an ERROR after a 202). An empty signature field of the
 * form takes it (what readers expect of a form prepared for signing, §12.7.4.5), provided it has
 * room when a stamp is drawn (CONTRACT: visible whenever a design applies); the form's author
 * chose that place, so it is not moved. Otherwise a new field goes on the design's page, placed
 * by stamp-placement.ts, or on the first page when the signature is invisible.
 */
export function placeSignature(reader: PdfReader, catalog: PDFDict, stamp: PlacedStamp | null, docMdp: null | 1 | 2 | 3): SignaturePlacement {
  const field = findEmptySignatureField(reader, catalog, { needsArea: stamp !== null });
  if (field) return { kind: 'field', field };
  const page = findPage(reader, catalog, stamp ? stamp.page : 'first');
  return { kind: 'page', page, stamp: stamp ? placeStamp(reader, page, stamp, docMdp) : null };
}
