import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PDFDocument,
  PDFName,
  PDFString,
  concatTransformationMatrix,
  drawObject,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { drawStampAppearance } from '../../../src/pades/stamp/stamp';
import { fillStampText } from '../../../src/platform/stamp-text';
import type { StampSpec } from '../../../src/domain/pades';
import { tempDir } from '../../helpers/temp-dir';

// Renders stamps the way a reader does (poppler's pdftoppm at 72 dpi: one pixel per point) and
// checks pixels, as pyHanko's stamp tests do. PPM (pdftoppm's default) needs no PNG decoder.
const PAGE_W = 300;
const PAGE_H = 200;
const vectors = join(__dirname, '../../vectors/stamp');
const redPng = readFileSync(join(vectors, 'red-20x20.png')).toString('base64');
const bluePng = readFileSync(join(vectors, 'blue-40x10-alpha.png')).toString('base64');
const work = tempDir('stamp-render-');
afterAll(() => { if (!process.env.KEEP_STAMP_RENDER) rmSync(work, { recursive: true, force: true }); else console.log(work); });

const UNICODE_LINE = 'Zoë Ñandú — Αθήνα — Москва';

interface Raster {
  width: number;
  height: number;
  /** RGB at PDF point (x, y), y from the page's bottom like the stamp spec. */
  at(x: number, y: number): [number, number, number];
}

function parsePpm(bytes: Buffer): Raster {
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not write a binary PPM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  const data = bytes.subarray(header[0].length);
  expect(data.length).toBe(width * height * 3);
  return {
    width,
    height,
    at(x, y) {
      const i = ((height - 1 - y) * width + x) * 3;
      return [data[i] as number, data[i + 1] as number, data[i + 2] as number];
    },
  };
}

async function renderStamps(name: string, stamps: StampSpec[]): Promise<{ pdf: string; raster: Raster }> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([PAGE_W, PAGE_H]);
  for (const stamp of stamps) {
    const ref = await drawStampAppearance(doc, stamp);
    const xobject = page.node.newXObject('Stamp', ref);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(1, 0, 0, 1, stamp.x, stamp.y),
      drawObject(xobject),
      popGraphicsState(),
    );
  }
  const pdf = join(work, `${name}.pdf`);
  writeFileSync(pdf, await doc.save());
  execFileSync('/usr/bin/pdftoppm', ['-r', '72', '-singlefile', pdf, join(work, name)]);
  return { pdf, raster: parsePpm(readFileSync(join(work, `${name}.ppm`))) };
}

const isWhite = ([r, g, b]: [number, number, number]) => r === 255 && g === 255 && b === 255;
const isDark = ([r, g, b]: [number, number, number]) => r < 96 && g < 96 && b < 96;

/** Pixels (x, y) of the page matching `test`, split by whether they lie in the given rectangle. */
function count(
  raster: Raster,
  rect: { x: number; y: number; width: number; height: number },
  test: (rgb: [number, number, number]) => boolean,
): { inside: number; outside: number } {
  let inside = 0;
  let outside = 0;
  for (let y = 0; y < raster.height; y++) {
    for (let x = 0; x < raster.width; x++) {
      if (!test(raster.at(x, y))) continue;
      const inRect = x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
      if (inRect) inside++;
      else outside++;
    }
  }
  return { inside, outside };
}

function pdftotext(pdf: string): string {
  return execFileSync('/usr/bin/pdftotext', ['-enc', 'UTF-8', pdf, '-']).toString('utf8');
}

describe('stamp rendered by pdftoppm', () => {
  it('draws Unicode text inside the box and nothing outside it; pdftotext extracts the words', async () => {
    const box = { x: 40, y: 60, width: 220, height: 60 };
    const text = fillStampText('Signed by {{ signer_name }}', { signer_name: 'Jürgen Groß' });
    const { pdf, raster } = await renderStamps('unicode', [
      { page: 'first', ...box, lines: [{ text: UNICODE_LINE, size: 11 }, { text, size: 9 }] },
    ]);
    expect([raster.width, raster.height]).toEqual([PAGE_W, PAGE_H]);
    const dark = count(raster, box, isDark);
    expect(dark.outside).toBe(0);
    expect(dark.inside).toBeGreaterThan(300);
    // Everything off the box is untouched paper.
    expect(count(raster, box, (rgb) => !isWhite(rgb)).outside).toBe(0);
    // The border is drawn at the box's edge: its left column is grey from bottom to top.
    for (let y = box.y + 2; y < box.y + box.height - 2; y++) {
      expect(isWhite(raster.at(box.x, y))).toBe(false);
    }
    // Inside the border, the row between it and the text's top (padding 3.6 pt) is white again.
    expect(count(raster, { x: box.x + 2, y: box.y + box.height - 2, width: box.width - 4, height: 1 }, (rgb) => !isWhite(rgb)).inside).toBe(0);
    const extracted = pdftotext(pdf);
    expect(extracted).toContain(UNICODE_LINE);
    expect(extracted).toContain('Signed by Jürgen Groß');
    // One font: a CID TrueType, Identity-H, embedded, subset, with ToUnicode (emb sub uni).
    const fonts = execFileSync('/usr/bin/pdffonts', [pdf]).toString('utf8').trim().split('\n').slice(2);
    expect(fonts).toHaveLength(1);
    expect(fonts[0]).toMatch(/^[A-Z]{6}\+DejaVuSans\s+CID TrueType\s+Identity-H\s+yes yes yes\s/);
  });

  it('renders as the appearance (/AP /N) of a signature widget, as the writer will use it', async () => {
    const box = { x: 50, y: 50, width: 150, height: 40 };
    const doc = await PDFDocument.create();
    const page = doc.addPage([PAGE_W, PAGE_H]);
    const ap = await drawStampAppearance(doc, { page: 'first', ...box, lines: [{ text: UNICODE_LINE, size: 9 }] });
    // ISO 32000-1 §12.7.4.5: a signature field merged with its widget; Print flag (F 4) set.
    const widget = doc.context.register(
      doc.context.obj({
        Type: 'Annot',
        Subtype: 'Widget',
        FT: 'Sig',
        T: PDFString.of('Signature1'),
        F: 4,
        Rect: [box.x, box.y, box.x + box.width, box.y + box.height],
        P: page.ref,
        AP: { N: ap },
      }),
    );
    page.node.set(PDFName.of('Annots'), doc.context.obj([widget]));
    doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [widget], SigFlags: 3 }));
    const pdf = join(work, 'widget.pdf');
    writeFileSync(pdf, await doc.save());
    execFileSync('/usr/bin/pdftoppm', ['-r', '72', '-singlefile', pdf, join(work, 'widget')]);
    const raster = parsePpm(readFileSync(join(work, 'widget.ppm')));
    expect(count(raster, box, (rgb) => !isWhite(rgb)).outside).toBe(0);
    expect(count(raster, box, isDark).inside).toBeGreaterThan(200);
    expect(pdftotext(pdf)).toContain(UNICODE_LINE);
  });

  it('shrinks a too-long line to the width down to 6 pt, cuts it with "…" past that, and drops lines past the height', async () => {
    const box = { x: 20, y: 20, width: 120, height: 40 };
    const long = 'Ωmega Щука Éléphant '.repeat(4).trim();
    const { pdf, raster } = await renderStamps('overflow', [
      {
        page: 'first',
        ...box,
        lines: [
          { text: long, size: 14 },
          { text: 'second line', size: 14 },
          { text: 'dropped line', size: 14 },
        ],
      },
    ]);
    expect(count(raster, box, (rgb) => !isWhite(rgb)).outside).toBe(0);
    expect(count(raster, box, isDark).inside).toBeGreaterThan(100);
    const extracted = pdftotext(pdf);
    // 80 characters need about 4 pt in 112 pt: below 6 pt the line is cut instead (issue 19).
    const first = extracted.split('\n').find((l) => l.startsWith('Ωmega'))!;
    expect(first).toMatch(/^Ωmega Щука Éléphant .+…$/);
    expect(long.startsWith(first.slice(0, -1))).toBe(true);
    expect(extracted).toContain('second line');
    expect(extracted).not.toContain('dropped');
  });

  it('shows the PNG on the left, aspect kept, with the text to its right', async () => {
    // 200 x 60 box: padding 3.6, so the 20x20 image becomes a 52.8 pt square at (3.6, 3.6).
    const box = { x: 20, y: 40, width: 200, height: 60 };
    const { raster } = await renderStamps('image', [
      { page: 'last', ...box, imagePngBase64: redPng, lines: [{ text: 'Approved', size: 14 }] },
    ]);
    const isRed = ([r, g, b]: [number, number, number]) => r > 240 && g < 20 && b < 20;
    const image = { x: 24, y: 44, width: 52, height: 52 };
    const red = count(raster, image, isRed);
    expect(red.inside).toBe(52 * 52);
    // At most the antialiased edge of the 52.8 pt square lies outside the whole-pixel core.
    expect(count(raster, { x: 23, y: 43, width: 54, height: 54 }, isRed).outside).toBe(0);
    const dark = count(raster, { x: 80, y: 40, width: 140, height: 60 }, isDark);
    expect(dark.inside).toBeGreaterThan(100);
    expect(count(raster, box, (rgb) => !isWhite(rgb)).outside).toBe(0);
  });

  it('keeps PNG transparency and fills the box with an image-only stamp', async () => {
    // No text: the 40x10 image takes the whole inner width (120 - 2*3 = 114 pt wide, 28.5 tall),
    // centred; its right half is fully transparent so the paper shows through.
    const box = { x: 100, y: 100, width: 120, height: 50 };
    const { raster } = await renderStamps('alpha', [
      { page: 1, ...box, imagePngBase64: bluePng, lines: [] },
    ]);
    const isBlue = ([r, g, b]: [number, number, number]) => r < 20 && g < 20 && b > 240;
    // Left half of the image: x 103..160, y 110.75..139.25 on the page.
    // (poppler smooths the soft mask over the last 3 pixels before the edge at x 160)
    expect(count(raster, { x: 104, y: 112, width: 54, height: 26 }, isBlue).inside).toBe(54 * 26);
    expect(count(raster, { x: 162, y: 112, width: 55, height: 26 }, isWhite).inside).toBe(55 * 26);
    expect(count(raster, { x: 103, y: 110, width: 58, height: 30 }, isBlue).outside).toBe(0);
  });

  it('passes qpdf --check with two stamps on one page', async () => {
    const { pdf } = await renderStamps('two', [
      { page: 'first', x: 10, y: 10, width: 100, height: 30, lines: [{ text: 'Один', size: 10 }] },
      { page: 'first', x: 150, y: 10, width: 100, height: 30, imagePngBase64: redPng, lines: [{ text: 'Δύο', size: 10 }] },
    ]);
    const out = execFileSync('/usr/bin/qpdf', ['--check', pdf]).toString('utf8');
    expect(out).toContain('No syntax or stream encoding errors found');
    const extracted = pdftotext(pdf);
    expect(extracted).toContain('Один');
    expect(extracted).toContain('Δύο');
  });
});
