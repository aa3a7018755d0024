/**
 * Poppler's own reading of where the words of a PDF are (`pdftotext -bbox`), turned into PDF
 * default user space (origin lower left), and the signature widgets' /Rect read back from a
 * signed PDF: together they check that a stamp covers no word (issue 11, "stamps that never hide
 * the document").
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRef } from 'pdf-lib';
import { runTool } from './pdf-tools';
import { tempDir } from './temp-dir';

export interface Rect {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface PageWords {
  /** 1-based page number. */
  page: number;
  words: (Rect & { text: string })[];
}

const decodeEntities = (s: string): string =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/**
 * Every word pdftotext finds, page by page. pdftotext measures from the crop box's top-left
 * corner, y downwards, in points (72 dpi); pages with a /Rotate or a crop box whose corner is not
 * the origin are refused here rather than converted wrongly.
 */
export async function pdftotextWords(pdf: Uint8Array): Promise<PageWords[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
  const dir = tempDir('ls-words-');
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const run = await runTool('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-']);
    if (run.code !== 0) throw new Error(`pdftotext -bbox failed: ${run.stderr}`);
    // runTool reads latin1 (byte for byte): the words are UTF-8, so "…" is one character again.
    const html = Buffer.from(run.stdout, 'latin1').toString('utf8');
    const pages: PageWords[] = [];
    for (const [n, chunk] of html.split(/<page /).slice(1).entries()) {
      const page = doc.getPage(n);
      const crop = page.getCropBox();
      if (page.getRotation().angle % 360 !== 0) throw new Error(`page ${n + 1} is rotated: pdftotextWords does not convert rotated pages`);
      const top = crop.y + crop.height;
      const words: PageWords['words'] = [];
      for (const m of chunk.matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g)) {
        const [xMin, yMin, xMax, yMax] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
        words.push({ x1: crop.x + xMin, x2: crop.x + xMax, y1: top - yMax, y2: top - yMin, text: decodeEntities(m[5]!) });
      }
      pages.push({ page: n + 1, words });
    }
    return pages;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SignatureWidget {
  /** 1-based page number the widget is on. */
  page: number;
  rect: Rect;
  fieldName: string;
}

/** Every signature widget that holds a value, with its page and /Rect (ISO 32000-1 §12.5.2). */
export async function signatureWidgets(pdf: Uint8Array): Promise<SignatureWidget[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
  const out: SignatureWidget[] = [];
  doc.getPages().forEach((page, i) => {
    const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
    for (const item of annots?.asArray() ?? []) {
      const annot = item instanceof PDFRef ? doc.context.lookup(item) : item;
      if (!(annot instanceof PDFDict) || annot.get(PDFName.of('FT')) !== PDFName.of('Sig') || !annot.has(PDFName.of('V'))) continue;
      const rect = annot.lookup(PDFName.of('Rect'), PDFArray).asArray().map((v) => (v as PDFNumber).asNumber());
      const [a, b, c, d] = rect as [number, number, number, number];
      const t = annot.get(PDFName.of('T'));
      out.push({ page: i + 1, rect: { x1: Math.min(a, c), y1: Math.min(b, d), x2: Math.max(a, c), y2: Math.max(b, d) }, fieldName: t ? String(t.toString()) : '' });
    }
  });
  return out;
}

/** True when the two rectangles share an area (touching edges do not count). */
export function overlaps(a: Rect, b: Rect): boolean {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}
