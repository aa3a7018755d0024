/**
 * Where a new stamp goes on its page (a signature stamp must not cover what was
 * signed). The design's box stays where the design put it when it covers nothing; otherwise the
 * stamp moves to the nearest free area of the same page; when none fits, the design's
 * `on_conflict` decides: "overlap" (the default: draw it there, with its opaque background),
 * "new_page" (a signature page appended to the document) or "refuse" (the request is refused).
 * Every move and every conflict is said in the result's `warnings` (CONTRACT: a PAdES result may
 * add `warnings`).
 */
import { PDFArray, PDFDict, PDFNumber, type PDFObject } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import type { PdfReader } from '../pdf';
import { findAnnotationBoxes, findContentBoxes, inheritedAttribute, type Box } from '../pdf';
import { findFreeArea } from './free-area';
import type { PageRef } from '../pdf';
import type { StampConflictPolicy } from '../../domain/pades';

export interface StampBox {
  x: number;
  y: number;
  width: number;
  height: number;
  onConflict?: StampConflictPolicy;
}

export type StampPosition =
  | { kind: 'page'; rect: Box; warnings: string[] }
  /** Append a page of the same boxes as `page` and put the stamp there, at the design's place. */
  | { kind: 'new_page'; rect: Box; mediaBox: Box; cropBox: Box | null; rotate: number; warnings: string[] };

/** Clear room kept around the page's content, in points: a stamp never touches a word. */
export const CONTENT_MARGIN = 4;
/** A painted area this big a share of the page is background art, not content (the stamp's opaque background covers it). */
const BACKGROUND_SHARE = 0.5;

function readBox(reader: PdfReader, read: () => PDFObject | undefined): Box | null {
  let array: PDFObject | undefined;
  try {
    array = reader.resolve(read());
  } catch {
    return null; // an unreadable box is no reason to refuse a signature: the defaults apply
  }
  if (!(array instanceof PDFArray) || array.size() !== 4) return null;
  const n = array.asArray().map((v) => reader.resolve(v));
  if (!n.every((v) => v instanceof PDFNumber)) return null;
  const [a, b, c, d] = n.map((v) => (v as PDFNumber).asNumber()) as [number, number, number, number];
  return { x1: Math.min(a, c), y1: Math.min(b, d), x2: Math.max(a, c), y2: Math.max(b, d) };
}

/** §14.11.2: the media box (US Letter when missing), and the crop box within it (the media box by default). */
export function pageBoxes(reader: PdfReader, page: PDFDict): { mediaBox: Box; cropBox: Box | null; visible: Box } {
  const mediaBox = readBox(reader, () => inheritedAttribute(reader, page, 'MediaBox')) ?? { x1: 0, y1: 0, x2: 612, y2: 792 };
  const cropBox = readBox(reader, () => inheritedAttribute(reader, page, 'CropBox'));
  const visible = cropBox
    ? { x1: Math.max(cropBox.x1, mediaBox.x1), y1: Math.max(cropBox.y1, mediaBox.y1), x2: Math.min(cropBox.x2, mediaBox.x2), y2: Math.min(cropBox.y2, mediaBox.y2) }
    : mediaBox;
  return { mediaBox, cropBox, visible: visible.x1 < visible.x2 && visible.y1 < visible.y2 ? visible : mediaBox };
}

const area = (b: Box): number => Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1);
const pt = (n: number): string => String(Math.round(n * 10) / 10);

/** What the stamp must not cover on `page`: text, images, drawings smaller than half the page, annotations. */
export function pageObstacles(reader: PdfReader, page: PDFDict, visible: Box, mediaBox: Box): { obstacles: Box[]; unreadable: boolean } {
  const content = findContentBoxes(reader, page, mediaBox);
  if (content.unreadable) return { obstacles: [visible], unreadable: true };
  const limit = area(visible) * BACKGROUND_SHARE;
  const obstacles: Box[] = content.boxes.filter((b) => b.kind !== 'path' || area(b) < limit);
  return { obstacles: [...obstacles, ...findAnnotationBoxes(reader, page)], unreadable: false };
}

/**
 * The stamp's place for a new signature field on `page`. `docMdp` is the document's
 * certification level: a certified document allows no new page (ISO 32000-1 §12.8.2.2 Table 254:
 * P=2 and P=3 permit filling forms and signing, not changing pages), so "new_page" is refused
 * there rather than breaking the certification.
 */
export function placeStamp(reader: PdfReader, page: PageRef, stamp: StampBox, docMdp: null | 1 | 2 | 3): StampPosition {
  const wanted = { x1: stamp.x, y1: stamp.y, x2: stamp.x + stamp.width, y2: stamp.y + stamp.height };
  const { mediaBox, cropBox, visible } = pageBoxes(reader, page.dict);
  const { obstacles, unreadable } = pageObstacles(reader, page.dict, visible, mediaBox);
  const found = findFreeArea({ page: visible, obstacles, wanted, margin: CONTENT_MARGIN });
  const pageNo = page.index + 1;
  if (found === wanted) return { kind: 'page', rect: wanted, warnings: [] };
  if (found) {
    return {
      kind: 'page',
      rect: found,
      warnings: [`the stamp was moved from (${pt(wanted.x1)}, ${pt(wanted.y1)}) to (${pt(found.x1)}, ${pt(found.y1)}) on page ${pageNo}: the design's box covered the page's content`],
    };
  }
  const why = unreadable
    ? `the content of page ${pageNo} could not be read, so no free area could be found for the stamp`
    : `no free area of page ${pageNo} fits the stamp (${pt(stamp.width)} x ${pt(stamp.height)} pt) without covering the page's content`;
  const policy = stamp.onConflict ?? 'overlap';
  if (policy === 'refuse') throw new PdfInputError(`${why}, and the design's stamp.on_conflict is "refuse"`);
  if (policy === 'new_page') {
    if (docMdp !== null) {
      throw new PdfInputError(`${why}; the design's stamp.on_conflict "new_page" would add a page, which the document's certification (DocMDP P=${docMdp}) forbids`);
    }
    let rotate = 0;
    try {
      const value = reader.resolve(inheritedAttribute(reader, page.dict, 'Rotate'));
      if (value instanceof PDFNumber && value.asNumber() % 90 === 0) rotate = value.asNumber();
    } catch {
      // unreadable: the signature page is upright
    }
    return { kind: 'new_page', rect: wanted, mediaBox, cropBox, rotate, warnings: [`${why}: the stamp is on a signature page added at the end (design stamp.on_conflict "new_page")`] };
  }
  return { kind: 'page', rect: wanted, warnings: [`${why}: the stamp is drawn over it at the design's place (design stamp.on_conflict "overlap")`] };
}
