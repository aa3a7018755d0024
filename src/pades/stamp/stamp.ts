/**
 * The visible signature's appearance: a Form XObject (ISO 32000-1 §8.10) that the PDF writer uses
 * as the widget's /AP /N (§12.5.5, §12.7.4.5). The caller serialises the new objects from
 * `doc.context` itself and never calls `doc.save()`, so everything this draws must already be an
 * indirect object in the context when we return.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import fontkit from '@pdf-lib/fontkit';
import {
  beginText,
  drawObject,
  endText,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  fill,
  setFillingGrayscaleColor,
  setFillingRgbColor,
  setFontAndSize,
  setLineWidth,
  setStrokingGrayscaleColor,
  setTextMatrix,
  showText,
  stroke,
  concatTransformationMatrix,
  PDFContentStream,
  typedArrayFor,
  type PDFContext,
  type PDFDocument,
  type PDFFont,
  type PDFImage,
  type PDFOperator,
  type PDFRef,
} from 'pdf-lib';
// DejaVu Sans 2.37 (Latin with accents, Greek, Cyrillic), from the npm package dejavu-fonts-ttf:
// no copy of the font in this repository. A cut-down copy (pyftsubset without the layout tables)
// was tried for speed: fontkit's subsets of it drew only some glyphs (stamp-glyphs.test.ts).
import dejavu from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';
import { InvalidInputError } from '../../domain/errors';
import { encodeWithoutTimers, SubsetCache } from './_font-subset';
import { decodeStampPng } from './stamp-png';
import { describeAdjustments, layoutStamp, type StampFontMetrics, type StampLayout } from './stamp-layout';
import type { StampSpec } from '../../domain/pades';

const FONT_RESOURCE = 'F1';
const IMAGE_RESOURCE = 'Im1';
const BORDER_GREY = 0.25;

let fontMetrics: { ascent: number; descent: number } | undefined;

/**
 * fontkit with shaping turned off for stamps. pdf-lib only takes the glyph list from
 * `font.layout()`, but fontkit builds it by running the font's GSUB/GPOS features, parsing those
 * tables anew for every document: 25 ms of a stamp's 33 in a CPU profile (on a 2-core machine).
 * Stamp text in Latin, Greek and Cyrillic needs no shaping, so glyphs come straight from the cmap.
 */
const unshapedFontkit: typeof fontkit = {
  ...fontkit,
  create(data: Uint8Array, postscriptName?: string) {
    // A face per document on purpose: one shared across documents lost glyphs from later documents'
    // ToUnicode maps (stamp-render test), because a face caches each glyph with the code points of
    // its first use. What is shared is below: the font's bytes and its decoded tables, which
    // fontkit only reads (the subsetter clones head, hhea and maxp before changing them). Decoding
    // name, hmtx, cmap and the rest again took 3 ms of a 6 ms stamp (measured on a 2-core machine).
    const own = data === dejavu;
    const font = fontkit.create(own ? (dejavuArrayBuffer() as unknown as Uint8Array) : data, postscriptName);
    if (own) (font as unknown as { _tables: Record<string, unknown> })._tables = dejavuTables;
    (font as { layout: unknown }).layout = (text: string) => ({ glyphs: font.glyphsForString(text) });
    // The subset's bytes without fontkit's timer-driven stream, DejaVu's recent ones kept (_font-subset.ts).
    const createSubset = font.createSubset.bind(font);
    font.createSubset = () => encodeWithoutTimers(createSubset(), own ? dejavuSubsets : null);
    return font;
  },
};

/** Font files of DejaVu's recent subsets (a stamp's glyphs are the same for a design and a minute). */
const dejavuSubsets = new SubsetCache();

/** DejaVu's decoded tables, filled by the first document that reads each one. */
const dejavuTables: Record<string, unknown> = {};
let dejavuWhole: ArrayBuffer | undefined;
/**
 * The font as an ArrayBuffer of its own. fontkit's bundled Buffer polyfill copies any typed array
 * it is given byte by byte (760,000 steps, 11 % of the service's time for small PDFs on a 2-core
 * machine; a Node Buffer is no exception), but wraps an ArrayBuffer without copying.
 */
function dejavuArrayBuffer(): ArrayBuffer {
  dejavuWhole ??= dejavu.byteOffset === 0 && dejavu.byteLength === dejavu.buffer.byteLength ? (dejavu.buffer as ArrayBuffer) : dejavu.slice().buffer;
  return dejavuWhole;
}

/** Ascender and descender of DejaVu Sans per point of size, read once from its hhea/OS/2 data. */
function dejavuMetrics(): { ascent: number; descent: number } {
  if (!fontMetrics) {
    // Through the ArrayBuffer, not copied (dejavuArrayBuffer): 8 ms of a PDF worker's first stamp.
    const face = fontkit.create(dejavuArrayBuffer() as unknown as Uint8Array);
    fontMetrics = {
      ascent: face.ascent / face.unitsPerEm,
      descent: Math.abs(face.descent) / face.unitsPerEm,
    };
  }
  return fontMetrics;
}

/**
 * A subset font's name starts with a six-letter tag and `+` (ISO 32000-1 §9.6.4). pdf-lib would
 * append a Math.random() suffix instead; deriving the tag from the drawn text (FNV-1a) keeps this
 * module deterministic and gives different subsets different names.
 */
function subsetTag(texts: string[]): string {
  let hash = 0x811c9dc5;
  for (const ch of texts.join('\n')) {
    hash ^= ch.codePointAt(0) as number;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  let tag = '';
  for (let i = 0; i < 6; i++) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26);
  }
  return tag;
}

/**
 * pdf-lib compresses streams with pako, zlib written in JavaScript: half of a small PDF's prepare,
 * most of it setting up a compressor for each stream anew (the font file, its ToUnicode
 * map, the form). Node's zlib writes the same format natively (RFC 1950; FlateDecode, ISO 32000-1
 * §7.4.4), as the incremental writer's cross-reference streams already do.
 */
function flateNatively(context: PDFContext): void {
  context.flateStream = (contents, dict = {}) => {
    const bytes = typedArrayFor(contents);
    const deflated = bytes.length >= KEPT_FLATE_MIN ? keptFlate(bytes) : deflateSync(bytes);
    return context.stream(new Uint8Array(deflated.buffer, deflated.byteOffset, deflated.byteLength), { ...dict, Filter: 'FlateDecode' });
  };
}

/**
 * Large streams (the stamp font's subset, its file the same for every stamp of a design drawn the
 * same minute, _font-subset.ts SubsetCache) deflated once, by their content's hash: compressing the
 * font file again was 0.3 ms of a PDF worker's time per small PDF (measured on a 2-core machine).
 * Deflate is deterministic, so the bytes written are the same; the few kept are never changed by
 * pdf-lib.
 */
const KEPT_FLATE_MIN = 4096;
const KEPT_FLATE_MAX = 16;
const keptFlates = new Map<string, Buffer>();
function keptFlate(bytes: Uint8Array): Buffer {
  const key = createHash('sha256').update(bytes).digest('base64');
  let deflated = keptFlates.get(key);
  if (deflated) {
    keptFlates.delete(key); // most recent last
  } else {
    deflated = deflateSync(bytes);
    if (keptFlates.size >= KEPT_FLATE_MAX) keptFlates.delete(keptFlates.keys().next().value!);
  }
  keptFlates.set(key, deflated);
  return deflated;
}

/** One line is one line: control characters (tabs, newlines from a filled value) become spaces. */
function cleanLine(text: string): string {
  return text.replace(/\p{Cc}/gu, ' ');
}

function positive(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${field} must be a positive number of points`);
  }
  return value;
}

/** Thousandths of a point are far below any device's resolution and keep the stream readable. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** `#rrggbb` as a design writes it. */
export const BACKGROUND_COLOUR = /^#[0-9a-fA-F]{6}$/;

/**
 * The stamp's fill: opaque white unless the design says otherwise, so the text stays legible
 * over background art; "none" keeps the old transparent stamp.
 */
function backgroundOf(stamp: StampSpec): [number, number, number] | null {
  const value = stamp.background ?? '#ffffff';
  if (value === 'none') return null;
  if (typeof value !== 'string' || !BACKGROUND_COLOUR.test(value)) throw new InvalidInputError('stamp.background must be a colour "#rrggbb" or "none"');
  return [1, 3, 5].map((i) => parseInt(value.slice(i, i + 2), 16) / 255) as [number, number, number];
}

function buildOperators(layout: StampLayout, font: PDFFont, background: [number, number, number] | null, size: { width: number; height: number }): PDFOperator[] {
  const { border } = layout;
  const ops: PDFOperator[] = [];
  if (background) {
    ops.push(
      pushGraphicsState(),
      setFillingRgbColor(...background.map(round) as [number, number, number]),
      rectangle(0, 0, round(size.width), round(size.height)),
      fill(),
      popGraphicsState(),
    );
  }
  ops.push(
    pushGraphicsState(),
    setStrokingGrayscaleColor(BORDER_GREY),
    setLineWidth(border.lineWidth),
    rectangle(round(border.x), round(border.y), round(border.width), round(border.height)),
    stroke(),
    popGraphicsState(),
  );
  if (layout.image) {
    // An image XObject paints the unit square, so the matrix scales it to its box (§8.9.4).
    const { x, y, width, height } = layout.image;
    ops.push(
      pushGraphicsState(),
      concatTransformationMatrix(round(width), 0, 0, round(height), round(x), round(y)),
      drawObject(IMAGE_RESOURCE),
      popGraphicsState(),
    );
  }
  const drawn = layout.lines.filter((line) => line.text.length > 0);
  if (drawn.length > 0) {
    ops.push(beginText(), setFillingGrayscaleColor(0));
    for (const line of drawn) {
      ops.push(
        setFontAndSize(FONT_RESOURCE, line.size),
        setTextMatrix(1, 0, 0, 1, round(line.x), round(line.y)),
        showText(font.encodeText(line.text)),
      );
    }
    ops.push(endText());
  }
  return ops;
}

/**
 * Registers in `doc.context` a Form XObject of `stamp.width` x `stamp.height` points that draws
 * the optional PNG (left, aspect kept), the text lines (already filled, top to bottom, shrunk to
 * the width down to 6 pt and cut with "…" past it, left out past the height) in embedded DejaVu
 * Sans, and a thin border. `warnings` names each line cut, left out or drawn below 6 pt. The font is a
 * subsetted Type0/CIDFontType2 with a ToUnicode CMap (§9.7.4, §9.10.3), so any Latin, Greek or
 * Cyrillic text renders and extracts. An opaque background (white unless `stamp.background`
 * says otherwise) goes under everything. Adds no page and leaves the catalog alone.
 */
export async function drawStamp(doc: PDFDocument, stamp: StampSpec): Promise<{ form: PDFRef; warnings: string[] }> {
  const width = positive(stamp.width, 'stamp.width');
  const height = positive(stamp.height, 'stamp.height');
  if (!Array.isArray(stamp.lines)) throw new InvalidInputError('stamp.lines must be a list');
  const background = backgroundOf(stamp);
  const lines = stamp.lines.map((line, i) => ({
    text: cleanLine(String(line.text ?? '')),
    size: positive(line.size, `stamp.lines[${i}].size`),
    ...(Array.isArray(line.unfilled) ? { unfilled: line.unfilled.map(String) } : {}),
  }));

  flateNatively(doc.context);
  let image: PDFImage | undefined;
  if (stamp.imagePngBase64 != null) {
    const png = decodeStampPng(stamp.imagePngBase64);
    try {
      image = await doc.embedPng(png);
    } catch (cause) {
      throw new InvalidInputError('stamp.image_png_base64 is not a readable PNG image', { cause });
    }
  }

  doc.registerFontkit(unshapedFontkit);
  const font = await doc.embedFont(dejavu, {
    subset: true,
    customName: `${subsetTag(lines.map((l) => l.text))}+DejaVuSans`,
  });
  const metrics: StampFontMetrics = {
    ...dejavuMetrics(),
    widthOfTextAtSize: (text, size) => font.widthOfTextAtSize(text, size),
  };
  const layout = layoutStamp(
    { width, height, lines, image: image ? { width: image.width, height: image.height } : null },
    metrics,
  );
  // encodeText (inside buildOperators) tells the subset which glyphs to keep, so it runs first.
  const operators = buildOperators(layout, font, background, { width, height });
  // pdf-lib writes fonts and images only when flushed (normally by save()); our caller never
  // saves, so the font file, CIDFont, ToUnicode and image streams are written now.
  await doc.flush();

  const context = doc.context;
  const fonts = { [FONT_RESOURCE]: font.ref };
  const resources = image
    ? { Font: fonts, XObject: { [IMAGE_RESOURCE]: image.ref } }
    : { Font: fonts };
  // The form XObject of §8.10 (pdf-lib's formXObject, compressed as the other streams are).
  const content = PDFContentStream.of(context.obj({}), operators, false).getUnencodedContents();
  const form = context.flateStream(content, {
    BBox: [0, 0, width, height],
    Matrix: [1, 0, 0, 1, 0, 0],
    Resources: resources,
    Type: 'XObject',
    Subtype: 'Form',
  });
  return { form: context.register(form), warnings: describeAdjustments(layout.adjustments) };
}

/** The appearance alone, for callers with no one to tell about a shortened line (tests, benches). */
export async function drawStampAppearance(doc: PDFDocument, stamp: StampSpec): Promise<PDFRef> {
  return (await drawStamp(doc, stamp)).form;
}
