/**
 * How wide and how tall a font's glyphs are, as content-boxes.ts needs it to bound shown text
 * (ISO 32000-1 §9.4.4: a glyph advances by w0 × Tfs; §9.6.2 /Widths, §9.7.4.3 /W and /DW,
 * §9.8 font descriptors, §9.6.5 Type 3 /FontMatrix). Errs on the large side wherever the font
 * leaves room for doubt: a stamp moved a little further than needed is harmless, a stamp over
 * text is not.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, StandardFontEmbedder, type PDFObject } from 'pdf-lib';
import type { FontNames } from '@pdf-lib/standard-fonts';
import type { PdfReader } from './pdf-reader';

export interface FontMetrics {
  /** Bytes per character code: 2 for Type0 fonts (CMap codes, read conservatively), else 1. */
  bytesPerCode: 1 | 2;
  /** Horizontal advance of `code` in text space units per unit of font size (w0 / 1000). */
  width(code: number): number;
  /** Vertical writing mode (a Type0 font whose CMap ends in -V, §9.7.4.3). */
  vertical?: boolean;
  /** Highest and lowest extent of any glyph above the baseline, per unit of font size. */
  ascent: number;
  descent: number;
}

/** When a font says nothing of its height: above poppler's own fallback (0.95, -0.35). */
const DEFAULT_ASCENT = 1;
const DEFAULT_DESCENT = -0.35;
/** A glyph of unknown width is taken as one em, wider than nearly every glyph (§9.2.4). */
const UNKNOWN_WIDTH = 1;

/** The standard 14 (§9.6.2.2) and the names writers give them (Arial is Helvetica's metric twin). */
const STANDARD_ALIASES: Record<string, string> = {
  Arial: 'Helvetica',
  'Arial,Bold': 'Helvetica-Bold',
  'Arial,Italic': 'Helvetica-Oblique',
  'Arial,BoldItalic': 'Helvetica-BoldOblique',
  ArialMT: 'Helvetica',
  TimesNewRoman: 'Times-Roman',
  TimesNewRomanPSMT: 'Times-Roman',
  CourierNew: 'Courier',
  CourierNewPSMT: 'Courier',
};
const STANDARD = new Set([
  'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique', 'Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique',
  'Helvetica-BoldOblique', 'Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic', 'Symbol', 'ZapfDingbats',
]);

function num(reader: PdfReader, obj: PDFObject | undefined): number | undefined {
  const v = reader.resolve(obj);
  return v instanceof PDFNumber ? v.asNumber() : undefined;
}

function numbers(reader: PdfReader, obj: PDFObject | undefined): number[] {
  const v = reader.resolve(obj);
  return v instanceof PDFArray ? v.asArray().map((x) => num(reader, x) ?? 0) : [];
}

/** Vertical extent from the descriptor's /Ascent, /Descent and /FontBBox, whichever reaches further. */
function verticalExtent(reader: PdfReader, descriptor: PDFDict | undefined, scale: number): { ascent: number; descent: number } {
  if (!descriptor) return { ascent: DEFAULT_ASCENT, descent: DEFAULT_DESCENT };
  const bbox = numbers(reader, descriptor.get(PDFName.of('FontBBox')));
  const tops = [num(reader, descriptor.get(PDFName.of('Ascent'))), bbox[3]].filter((v): v is number => v !== undefined && v > 0);
  const bottoms = [num(reader, descriptor.get(PDFName.of('Descent'))), bbox[1]].filter((v): v is number => v !== undefined && v < 0);
  return {
    ascent: tops.length ? Math.max(...tops) * scale : DEFAULT_ASCENT,
    descent: bottoms.length ? Math.min(...bottoms) * scale : DEFAULT_DESCENT,
  };
}

/** Widths of a standard-14 font in its built-in encoding, for fonts that omit /Widths (allowed before PDF 1.5). */
function standardWidth(baseFont: string): ((code: number) => number) | null {
  const plain = baseFont.replace(/^[A-Z]{6}\+/, '');
  const name = STANDARD_ALIASES[plain] ?? plain;
  if (!STANDARD.has(name)) return null;
  const embedder = StandardFontEmbedder.for(name as FontNames);
  return (code) => {
    if (code < 0x20 || code > 0x7e) return UNKNOWN_WIDTH;
    try {
      return embedder.widthOfTextAtSize(String.fromCharCode(code), 1000) / 1000;
    } catch {
      return UNKNOWN_WIDTH;
    }
  };
}

/** §9.7.4.3: /W holds `c [w1 w2 …]` and `cfirst clast w` runs. */
function cidWidths(reader: PdfReader, w: PDFObject | undefined): Map<number, number> {
  const out = new Map<number, number>();
  const items = reader.resolve(w);
  if (!(items instanceof PDFArray)) return out;
  const list = items.asArray();
  for (let i = 0; i < list.length && out.size < 100_000; ) {
    const first = num(reader, list[i]);
    const next = reader.resolve(list[i + 1]);
    if (first === undefined) break;
    if (next instanceof PDFArray) {
      numbers(reader, next).forEach((width, k) => out.set(first + k, width));
      i += 2;
    } else {
      const last = num(reader, next);
      const width = num(reader, list[i + 2]);
      if (last === undefined || width === undefined) break;
      for (let c = first; c <= last && c - first < 65_536; c++) out.set(c, width);
      i += 3;
    }
  }
  return out;
}

function type0Metrics(reader: PdfReader, font: PDFDict): FontMetrics {
  const descendants = reader.getArray(font, 'DescendantFonts');
  const cidFont = descendants ? reader.resolve(descendants.get(0)) : undefined;
  const cid = cidFont instanceof PDFDict ? cidFont : undefined;
  const dw = (cid && reader.getNumber(cid, 'DW')) ?? 1000;
  const widths = cid ? cidWidths(reader, cid.get(PDFName.of('W'))) : new Map<number, number>();
  const encoding = reader.get(font, 'Encoding');
  const identity = encoding === PDFName.of('Identity-H') || encoding === PDFName.of('Identity-V');
  const descriptor = cid ? reader.getDict(cid, 'FontDescriptor') : undefined;
  const extent = verticalExtent(reader, descriptor, 1 / 1000);
  const cmapName = encoding instanceof PDFName ? encoding.decodeText() : '';
  if (cmapName.endsWith('-V')) return { bytesPerCode: identity ? 2 : 1, width: () => 1, vertical: true, ...extent };
  if (identity) return { bytesPerCode: 2, width: (code) => (widths.get(code) ?? dw) / 1000, ...extent };
  // Another CMap may map codes of one to four bytes (§9.7.6.2); reading two bytes per code could
  // halve the glyph count, so each byte is taken as a glyph of the font's widest width.
  const widest = Math.max(dw, ...widths.values(), 1000) / 1000;
  return { bytesPerCode: 1, width: () => widest, ...extent };
}

function simpleMetrics(reader: PdfReader, font: PDFDict, subtype: PDFObject | undefined): FontMetrics {
  const descriptor = reader.getDict(font, 'FontDescriptor');
  const type3 = subtype === PDFName.of('Type3');
  // Type 3 widths and bounding box are in glyph space, mapped to text space by /FontMatrix (§9.6.5).
  const matrix = type3 ? numbers(reader, font.get(PDFName.of('FontMatrix'))) : [];
  const scale = type3 ? Math.abs(matrix[0] ?? 0.001) : 1 / 1000;
  const vscale = type3 ? Math.abs(matrix[3] ?? 0.001) : 1 / 1000;
  const firstChar = reader.getNumber(font, 'FirstChar') ?? 0;
  const widths = numbers(reader, font.get(PDFName.of('Widths')));
  const missing = descriptor ? reader.getNumber(descriptor, 'MissingWidth') : undefined;
  const baseFont = reader.get(font, 'BaseFont');
  const standard = widths.length === 0 && baseFont instanceof PDFName ? standardWidth(baseFont.decodeText()) : null;
  const width = (code: number): number => {
    const w = widths[code - firstChar];
    if (w !== undefined) return Math.abs(w) * scale;
    if (standard) return standard(code);
    return missing ? Math.abs(missing) * scale : UNKNOWN_WIDTH;
  };
  let extent = verticalExtent(reader, descriptor, vscale);
  if (type3) {
    const bbox = numbers(reader, font.get(PDFName.of('FontBBox')));
    // An all-zero /FontBBox means "no assumption" (§9.6.5 Table 112): keep the fallbacks then.
    if (bbox.length === 4 && bbox[3] !== bbox[1]) {
      extent = { ascent: Math.max(bbox[1]!, bbox[3]!) * vscale, descent: Math.min(bbox[1]!, bbox[3]!, 0) * vscale };
    }
  }
  return { bytesPerCode: 1, width, ...extent };
}

/** Metrics of a font dictionary (§9.5); an unreadable one gets the unknown-font fallbacks. */
export function readFontMetrics(reader: PdfReader, font: PDFObject | undefined): FontMetrics {
  const dict = reader.resolve(font);
  if (!(dict instanceof PDFDict)) return { bytesPerCode: 1, width: () => UNKNOWN_WIDTH, ascent: DEFAULT_ASCENT, descent: DEFAULT_DESCENT };
  const subtype = reader.get(dict, 'Subtype');
  return subtype === PDFName.of('Type0') ? type0Metrics(reader, dict) : simpleMetrics(reader, dict, subtype);
}
