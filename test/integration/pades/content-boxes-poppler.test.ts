/**
 * Our operator walker (src/pades/pdf/content-boxes.ts) against poppler: on every page of the corpus,
 * every word `pdftotext -bbox` reports lies inside the boxes we found (text boxes and annotation
 * rectangles, grown by half a point for rounding). The stamp placement keeps 4 points clear
 * around these boxes, so a word inside them is a word no stamp covers.
 */
import { describe, expect, it } from 'vitest';
import { PdfReader } from '../../../src/pades/pdf/pdf-reader';
import { findAnnotationBoxes, findContentBoxes, type Box } from '../../../src/pades/pdf/content-boxes';
import { pageBoxes } from '../../../src/pades/stamp/stamp-placement';
import { findPage } from '../../../src/pades/pdf/signature-field';
import { generateBackgroundArt, generateFooterDocument, generateFullPage, listCommittedCorpus } from '../../helpers/pdf-corpus';
import { pdftotextWords, type Rect } from '../../helpers/pdf-words';

const corpus = [
  ...listCommittedCorpus(),
  { name: 'generated-footers.pdf', bytes: await generateFooterDocument() },
  { name: 'generated-full-page.pdf', bytes: await generateFullPage() },
  { name: 'generated-background-art.pdf', bytes: await generateBackgroundArt() },
];

const TOLERANCE = 0.5;
/** Poppler cannot read this file's font (a hybrid file's object stream: "xref num 5 not found"), so it shows no text. */
const NO_WORDS_FOR_POPPLER = new Set(['hand-hybrid-xref.pdf']);

/** True when every point of `word` (sampled every half point, edges included) is in some box. */
function covered(word: Rect, boxes: Box[]): boolean {
  const grown = boxes.map((b) => ({ x1: b.x1 - TOLERANCE, y1: b.y1 - TOLERANCE, x2: b.x2 + TOLERANCE, y2: b.y2 + TOLERANCE }));
  const steps = (a: number, b: number): number[] => {
    const n = Math.max(1, Math.ceil((b - a) / 0.5));
    return Array.from({ length: n + 1 }, (_, i) => a + ((b - a) * i) / n);
  };
  for (const x of steps(word.x1, word.x2)) {
    for (const y of steps(word.y1, word.y2)) {
      if (!grown.some((b) => b.x1 <= x && x <= b.x2 && b.y1 <= y && y <= b.y2)) return false;
    }
  }
  return true;
}

describe('content boxes cover every word pdftotext -bbox finds', () => {
  it.each(corpus.map((c) => [c.name, c.bytes] as const))('%s', async (name, bytes) => {
    const reader = new PdfReader(bytes);
    const { dict: catalog } = reader.catalog();
    const pages = await pdftotextWords(bytes);
    let words = 0;
    for (const { page: number, words: pageWords } of pages) {
      const page = findPage(reader, catalog, number).dict;
      const { mediaBox } = pageBoxes(reader, page);
      const content = findContentBoxes(reader, page, mediaBox);
      expect(content.unreadable).toBe(false);
      const boxes = [...content.boxes.filter((b) => b.kind === 'text'), ...findAnnotationBoxes(reader, page)];
      const missed = pageWords.filter((w) => !covered(w, boxes));
      expect(missed.map((w) => `page ${number}: ${w.text} (${w.x1}, ${w.y1})-(${w.x2}, ${w.y2})`)).toEqual([]);
      words += pageWords.length;
    }
    // The comparison means something only where poppler found words (the hand-written ones have few).
    if (NO_WORDS_FOR_POPPLER.has(name)) expect(words).toBe(0);
    else expect(words).toBeGreaterThan(0);
  });
});
