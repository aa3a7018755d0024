/**
 * Issue 11, "stamps that never hide the document": every document of the corpus signed with the
 * two default designs (the standard stamp at the foot of the last page, the approval stamp at the
 * head of the first), then poppler's own word boxes (`pdftotext -bbox` on the input) compared
 * with the signature widget's /Rect in the output: no word of the page under the stamp. Each
 * output is still an incremental update that pdfsig and qpdf accept, earlier signatures included.
 * Then the three `on_conflict` answers on a page with no free area at all.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparePades } from '../../../src/pades/sign/prepare';
import type { StampSpec } from '../../../src/domain/pades';
import { defaultDesigns } from '../../../src/platform/default-designs';
import {
  CORPUS_SIGNING,
  generateBackgroundArt,
  generateFooterDocument,
  generateFullPage,
  listCommittedCorpus,
  signWithEngine,
} from '../../helpers/pdf-corpus';
import { qpdfCheck, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { overlaps, pdftotextWords, signatureWidgets } from '../../helpers/pdf-words';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

const [standard, approval] = defaultDesigns({ standard: 'std', approval: 'appr' }).map((d) => ({
  ...d.stamp,
  lines: d.stamp.lines.map((l) => ({ text: l.text.replace(/\{\{[^}]+\}\}/g, 'Corpus Tester'), size: l.size })),
})) as [StampSpec, StampSpec];

const corpus = [
  ...listCommittedCorpus(),
  { name: 'generated-footers.pdf', bytes: await generateFooterDocument() },
  { name: 'generated-background-art.pdf', bytes: await generateBackgroundArt() },
];
const cases = corpus.flatMap((pdf) => [
  [pdf.name, 'standard (last page, bottom left)', standard, pdf.bytes] as const,
  [pdf.name, 'approval (first page, top left)', approval, pdf.bytes] as const,
]);

let pki: TestPki;
let dir: string;

beforeAll(async () => {
  dir = tempDir('localsign-stamps-');
  pki = await createTestPki({ algorithm: 'p256', signerCn: 'Stamp Placement Signer' });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

async function pageCount(pdf: Uint8Array): Promise<number> {
  const file = join(dir, `count-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const info = await runTool('pdfinfo', [file]);
  return Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1]);
}

/** The output's widgets minus the input's: the one this signature added. */
async function newWidget(input: Uint8Array, output: Uint8Array) {
  const before = new Set((await signatureWidgets(input)).map((w) => w.fieldName));
  const added = (await signatureWidgets(output)).filter((w) => !before.has(w.fieldName));
  expect(added).toHaveLength(1);
  return added[0]!;
}

/** pdfsig: every signature, the new one included, valid; qpdf: no error. */
async function expectValid(name: string, output: Uint8Array, signatures: number): Promise<void> {
  const file = join(dir, name);
  writeFileSync(file, output);
  const sig = await runPdfsig(file);
  expect(sig.signatures.filter((s) => s.signed)).toHaveLength(signatures);
  for (const s of sig.signatures.filter((x) => x.signed)) expect(s.validation).toBe('Signature is Valid.');
  expect((await qpdfCheck(file)).ok).toBe(true);
}

describe('no stamp over a word: pdftotext -bbox of the input against the widget /Rect', () => {
  it.each(cases)('%s, %s', async (name, _design, stamp, input) => {
    const { output, prepared } = await signWithEngine(input, { ...pki, algorithm: 'p256' }, { stamp });
    expect(Buffer.compare(output.subarray(0, input.length), input)).toBe(0);
    const widget = await newWidget(input, output);
    const words = (await pdftotextWords(input)).find((p) => p.page === widget.page)?.words ?? [];
    const covered = words.filter((w) => overlaps(w, widget.rect));
    expect(covered.map((w) => w.text)).toEqual([]);
    const earlier = (await signatureWidgets(input)).length;
    await expectValid(`${name}-${stamp.page}.pdf`, output, earlier + 1);
    // A move is said; a box left where the design put it says nothing. (The form field of
    // hand-signature-field.pdf takes the stamp at the field's place: the form's author chose it.)
    const moved = widget.rect.x1 !== stamp.x || widget.rect.y1 !== stamp.y;
    if (name !== 'hand-signature-field.pdf') {
      expect(prepared.warnings).toEqual(moved ? [expect.stringMatching(/^the stamp was moved from /)] : []);
    }
  });

  it('moves the standard stamp off the LibreOffice footnote and footer, and says so', async () => {
    const input = corpus.find((c) => c.name === 'libreoffice-footnotes.pdf')!.bytes;
    const { output, prepared } = await signWithEngine(input, { ...pki, algorithm: 'p256' }, { stamp: standard });
    const widget = await newWidget(input, output);
    expect(widget.page).toBe(3);
    // The design's box (36, 36)-(276, 108) covers the footnote and the footer of page 3.
    const words = (await pdftotextWords(input)).find((p) => p.page === 3)!.words;
    expect(words.filter((w) => overlaps(w, { x1: 36, y1: 36, x2: 276, y2: 108 })).length).toBeGreaterThan(10);
    expect(widget.rect.x2 - widget.rect.x1).toBe(240);
    expect(widget.rect.y2 - widget.rect.y1).toBe(72);
    expect(prepared.warnings).toEqual([
      `the stamp was moved from (36, 36) to (${widget.rect.x1}, ${widget.rect.y1}) on page 3: the design's box covered the page's content`,
    ]);
  });
});

describe('the stamp\'s opaque background', () => {
  it('keeps the stamp white over background art (the panel is not content, so the stamp sits on it)', async () => {
    const input = corpus.find((c) => c.name === 'generated-background-art.pdf')!.bytes;
    const { output } = await signWithEngine(input, { ...pki, algorithm: 'p256' }, { stamp: standard });
    const widget = await newWidget(input, output);
    const file = join(dir, 'background-art.pdf');
    writeFileSync(file, output);
    // Rendered by poppler at 72 dpi: the stamp's lower-right corner (no text there) is white,
    // the page beside the stamp is the panel's colour rgb(0.85, 0.9, 1).
    const pixel = async (x: number, y: number): Promise<number[]> => {
      const out = join(dir, `pixel-${x}-${y}`);
      await runTool('pdftoppm', ['-r', '72', '-x', String(x), '-y', String(842 - y), '-W', '1', '-H', '1', '-singlefile', file, out]);
      return [...readFileSync(`${out}.ppm`).subarray(-3)];
    };
    expect(await pixel(Math.round(widget.rect.x2) - 5, Math.round(widget.rect.y1) + 5)).toEqual([255, 255, 255]);
    expect(await pixel(Math.round(widget.rect.x2) + 20, Math.round(widget.rect.y1) + 5)).toEqual([217, 229, 255]);
  });
});

describe('on_conflict when no free area of the page fits the stamp', () => {
  let full: Uint8Array;
  beforeAll(async () => {
    full = await generateFullPage();
  });

  it('"overlap" (and no on_conflict): the stamp stays at the design\'s place, with a warning', async () => {
    for (const stamp of [standard, { ...standard, onConflict: 'overlap' as const }]) {
      const { output, prepared } = await signWithEngine(full, { ...pki, algorithm: 'p256' }, { stamp });
      const widget = await newWidget(full, output);
      expect(widget).toMatchObject({ page: 1, rect: { x1: 36, y1: 36, x2: 276, y2: 108 } });
      expect(prepared.warnings).toEqual([
        'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content: the stamp is drawn over it at the design\'s place (design stamp.on_conflict "overlap")',
      ]);
      await expectValid(`overlap-${stamp.onConflict ?? 'default'}.pdf`, output, 1);
    }
  });

  it('"new_page": a signature page of the same size at the end, the stamp on it at the design\'s place', async () => {
    const { output, prepared } = await signWithEngine(full, { ...pki, algorithm: 'p256' }, { stamp: { ...standard, onConflict: 'new_page' } });
    expect(Buffer.compare(output.subarray(0, full.length), full)).toBe(0);
    expect(await pageCount(full)).toBe(1);
    expect(await pageCount(output)).toBe(2);
    const widget = await newWidget(full, output);
    expect(widget).toMatchObject({ page: 2, rect: { x1: 36, y1: 36, x2: 276, y2: 108 } });
    const file = join(dir, 'new-page.pdf');
    writeFileSync(file, output);
    const size = await runTool('pdfinfo', ['-f', '2', '-l', '2', file]);
    expect(size.stdout).toMatch(/^Page\s+2 size:\s+595 x 842 pts/m);
    expect(prepared.warnings).toEqual([
      'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content: the stamp is on a signature page added at the end (design stamp.on_conflict "new_page")',
    ]);
    await expectValid('new-page-valid.pdf', output, 1);
  });

  it('"new_page" keeps an earlier signature valid', async () => {
    const first = await signWithEngine(full, { ...pki, algorithm: 'p256' }, { stamp: { ...standard, onConflict: 'new_page' } });
    const second = await signWithEngine(first.output, { ...pki, algorithm: 'p256' }, { stamp: { ...standard, onConflict: 'new_page' } });
    expect(Buffer.compare(second.output.subarray(0, first.output.length), first.output)).toBe(0);
    // The second stamp goes on the signature page (now the last page), beside the first one.
    const widget = await newWidget(first.output, second.output);
    expect(widget.page).toBe(2);
    expect(overlaps(widget.rect, { x1: 36, y1: 36, x2: 276, y2: 108 })).toBe(false);
    await expectValid('new-page-twice.pdf', second.output, 2);
  });

  it('"refuse": no signature, and an error that says why', async () => {
    await expect(
      preparePades({ pdf: full, certificateChain: pki.chain, ...CORPUS_SIGNING, stamp: { ...standard, onConflict: 'refuse' } }),
    ).rejects.toThrow('no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content, and the design\'s stamp.on_conflict is "refuse"');
  });
});
