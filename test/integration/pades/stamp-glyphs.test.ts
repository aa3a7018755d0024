import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { drawStampAppearance } from '../../../src/pades/stamp/stamp';
import { tempDir } from '../../helpers/temp-dir';

/** Dark pixels of a PGM (P5) image inside [x0, x1) × [y0, y1). */
function darkPixels(pgm: Buffer, box: { x0: number; y0: number; x1: number; y1: number }): number {
  const header = pgm.toString('latin1', 0, 64).match(/^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/);
  if (!header) throw new Error('not a binary PGM');
  const width = Number(header[1]);
  const offset = header[0].length;
  let n = 0;
  for (let y = box.y0; y < box.y1; y += 1) for (let x = box.x0; x < box.x1; x += 1) if (pgm[offset + y * width + x]! < 128) n += 1;
  return n;
}

/**
 * Every character of the stamp must really be drawn: text extraction (ToUnicode) and "some dark
 * pixels" both passed while a re-cut stamp font rendered only a few of its glyphs. One character
 * per stamp, large, and its inside (away from the border) must have ink.
 */
describe('every stamp glyph renders', () => {
  const dir = tempDir('localsign-glyphs-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([...'SignedbyZoëÑandúΑθήναМосква0123456789—·'])('draws %s', async (ch) => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([60, 60]);
    const form = await drawStampAppearance(doc, { page: 'first', x: 0, y: 0, width: 60, height: 60, lines: [{ text: ch, size: 36 }] });
    const name = page.node.newXObject('Stamp', form);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(1, 0, 0, 1, 0, 0), drawObject(name), popGraphicsState());
    const pdf = join(dir, 'glyph.pdf');
    writeFileSync(pdf, await doc.save());
    execFileSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', pdf, join(dir, 'glyph')]);
    const ink = darkPixels(readFileSync(join(dir, 'glyph.pgm')), { x0: 6, y0: 6, x1: 54, y1: 54 });
    expect(ink, `dark pixels inside the box for "${ch}"`).toBeGreaterThan(ch === '·' ? 2 : 15);
  });
});
