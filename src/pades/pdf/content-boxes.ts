/**
 * Where a page paints: the boxes, in default user space (ISO 32000-1 §8.3.2.3), of its text,
 * images and painted paths, found by walking its content streams (§7.8.2) with the graphics
 * state's CTM (§8.4.2), the text state and matrices (§9.3, §9.4), path painting (§8.5.3), image
 * and form XObjects (§8.9, §8.10) and inline images (§8.9.7). Pure: bytes in, boxes out.
 *
 * Boxes are upper bounds, never tight: one box per text-showing operator, spanning every glyph's
 * advance and the font's full height (the stamp placement must never put a stamp over a word;
 * content-boxes-poppler.test.ts checks them against `pdftotext -bbox`). Clipping narrows paths
 * and images but never text, and anything this walker cannot read counts as the whole page.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, type PDFObject } from 'pdf-lib';
import { Walker, type Box, type ContentBox, type GraphicsState } from './_content-walker';
import type { PdfReader } from './pdf-reader';

export type { Box, ContentBox } from './_content-walker';

/** An inheritable page attribute (§7.7.3.4 Table 30): the page's own, else its nearest ancestor's. */
export function inheritedAttribute(reader: PdfReader, page: PDFDict, key: string): PDFObject | undefined {
  let node: PDFDict | undefined = page;
  for (let depth = 0; node && depth < 64; depth++) {
    const value = reader.get(node, key);
    if (value !== undefined) return value;
    node = reader.getDict(node, 'Parent');
  }
  return undefined;
}

/** The page's content streams, concatenated (§7.8.2: one stream split anywhere between tokens). */
function pageContent(reader: PdfReader, page: PDFDict): Uint8Array {
  const contents = reader.get(page, 'Contents');
  const streams = contents instanceof PDFArray ? contents.asArray().map((s) => reader.resolve(s)) : [contents];
  const parts = streams.filter((s): s is PDFRawStream => s instanceof PDFRawStream).map((s) => reader.decodeStream(s));
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length + 1, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    out[at + p.length] = 0x0a;
    at += p.length + 1;
  }
  return out;
}

export interface PageContent {
  boxes: ContentBox[];
  /** Some content could not be read (a filter we cannot undo, too many operators): assume it is everywhere. */
  unreadable: boolean;
}

/**
 * The boxes of everything `page` paints, in default user space. `mediaBox` is where painting
 * can show at all (§14.11.2): the clip a page starts with.
 */
export function findContentBoxes(reader: PdfReader, page: PDFDict, mediaBox: Box): PageContent {
  const walker = new Walker(reader);
  let content: Uint8Array;
  try {
    content = pageContent(reader, page);
  } catch {
    return { boxes: [], unreadable: true };
  }
  let resources: PDFObject | undefined;
  try {
    resources = inheritedAttribute(reader, page, 'Resources');
  } catch {
    return { boxes: [], unreadable: true };
  }
  const start: GraphicsState = {
    ctm: [1, 0, 0, 1, 0, 0],
    clip: mediaBox,
    lineWidth: 1,
    font: null,
    fontSize: 0,
    charSpacing: 0,
    wordSpacing: 0,
    horizontalScale: 1,
    leading: 0,
    rise: 0,
  };
  try {
    walker.walk(content, resources instanceof PDFDict ? resources : undefined, start, new Set());
  } catch {
    // A broken font or XObject the page names (an unreadable object, a bad reference) is no
    // reason to refuse the signature: the page counts as full instead.
    return { boxes: walker.boxes, unreadable: true };
  }
  return { boxes: walker.boxes, unreadable: walker.unreadable };
}

/**
 * The rectangles of the page's visible annotations (§12.5.2 /Rect): their appearances are drawn
 * over the page (form fields' values, earlier signatures' stamps), and a new stamp must cover
 * none of them. Popups (drawn only on demand) and annotations flagged Hidden or NoView (§12.5.3
 * Table 165, bits 2 and 6) are left out.
 */
export function findAnnotationBoxes(reader: PdfReader, page: PDFDict): Box[] {
  const out: Box[] = [];
  const annots = reader.getArray(page, 'Annots');
  for (const item of annots?.asArray().slice(0, 10_000) ?? []) {
    let annot: PDFObject | undefined;
    try {
      annot = reader.resolve(item);
    } catch {
      continue; // an unreadable annotation draws nothing a reader could show
    }
    if (!(annot instanceof PDFDict) || reader.get(annot, 'Subtype') === PDFName.of('Popup')) continue;
    const flags = reader.getNumber(annot, 'F') ?? 0;
    if (flags & 0x22) continue;
    const rect = reader.getArray(annot, 'Rect')?.asArray().map((v) => reader.resolve(v));
    if (!rect || rect.length !== 4 || !rect.every((v) => v instanceof PDFNumber)) continue;
    const [a, b, c, d] = rect.map((v) => (v as PDFNumber).asNumber()) as [number, number, number, number];
    if (a === c || b === d) continue;
    out.push({ x1: Math.min(a, c), y1: Math.min(b, d), x2: Math.max(a, c), y2: Math.max(b, d) });
  }
  return out;
}
