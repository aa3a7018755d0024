import { PDFDocument, StandardFonts } from 'pdf-lib';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as contentBoxes from '../../../../src/pades/pdf/content-boxes';
import * as pdfReader from '../../../../src/pades/pdf/pdf-reader';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { inspectPdf } from '../../../../src/pades/pdf/pdf-check';
import { placeSignature, type StampDecision } from '../../../../src/pades/stamp/placement';
import { preparePades } from '../../../../src/pades/sign/prepare';
import { checkAndPreparePades, checkPdfForSigning } from '../../../../src/pades/sign/sign-check';
import type { StampSpec } from '../../../../src/domain/pades';
import { createTestPki, type TestPki } from '../../../helpers/test-pki';

// The content walker, watched: its calls are counted, its answers are the real ones.
vi.mock('../../../../src/pades/pdf/content-boxes', async (original) => {
  const real = await original<typeof import('../../../../src/pades/pdf/content-boxes')>();
  return { ...real, findContentBoxes: vi.fn(real.findContentBoxes) };
});
const walks = () => vi.mocked(contentBoxes.findContentBoxes).mock.calls.length;

/** One page with a footer where the design's box would go: the stamp is moved, and says so. */
async function footerPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText('Page 1 of 1 - a footer across the foot of the page', { x: 56, y: 40, size: 10, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save({ useObjectStreams: false });
}

const DESIGN: StampSpec = { page: 'last', x: 36, y: 36, width: 240, height: 72, lines: [{ text: 'Signed by {{signer_name}}', size: 10 }, { text: 'Date: {{date}}', size: 8 }] };
/** The stamp as prepare gets it: the same box, its text filled (the date only known at prepare). */
const FILLED: StampSpec = { ...DESIGN, lines: [{ text: 'Signed by A. Signer', size: 10 }, { text: 'Date: 2026-01-02 03:04 UTC', size: 8 }] };
const signingTime = new Date('2026-01-02T03:04:05Z');

describe('the stamp placement, decided at the check before the 202 and carried to prepare (issue 18)', () => {
  let pki: TestPki;
  let pdf: Uint8Array;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'p256' });
    pdf = await footerPdf();
  });
  beforeEach(() => vi.mocked(contentBoxes.findContentBoxes).mockClear());

  it('the check walks the page once and hands out the decision as plain data, warnings included', () => {
    const check = checkPdfForSigning(pdf, DESIGN);
    expect(walks()).toBe(1);
    expect(check.placement).toEqual({
      pageIndex: 0,
      box: { page: 'last', x: 36, y: 36, width: 240, height: 72 },
      position: { kind: 'page', rect: { x1: 36, y1: 54, x2: 276, y2: 126 }, warnings: [check.warnings[0]] },
    });
    expect(check.warnings).toEqual(['the stamp was moved from (36, 36) to (36, 54) on page 1: the design\'s box covered the page\'s content']);
    // It crosses to and from the PDF workers as it is (V8 serialization keeps plain data).
    expect(structuredClone(check.placement)).toEqual(check.placement);
  });

  it('prepare given the decision does not walk the page, and writes the same bytes as prepare deciding itself', async () => {
    const { placement } = checkPdfForSigning(pdf, DESIGN);
    vi.mocked(contentBoxes.findContentBoxes).mockClear();
    const input = { pdf, certificateChain: pki.chain, signingTime, signerName: 'A. Signer', stamp: FILLED };
    const carried = await preparePades({ ...input, placement });
    expect(walks()).toBe(0);
    const decided = await preparePades(input);
    expect(walks()).toBe(1);
    expect(Buffer.from(carried.pdf).equals(Buffer.from(decided.pdf))).toBe(true);
    expect(carried.digest).toEqual(decided.digest);
    expect(carried.warnings).toEqual(decided.warnings);
    expect(carried.warnings).toHaveLength(1);
  });

  it('check and prepare in one go (a small document before its 202): one reading, one walk, the same bytes as the two steps', async () => {
    const input = { pdf, certificateChain: pki.chain, signingTime, signerName: 'A. Signer', stamp: FILLED };
    const check = checkPdfForSigning(pdf, DESIGN);
    const apart = await preparePades({ ...input, placement: check.placement });
    vi.mocked(contentBoxes.findContentBoxes).mockClear();
    // Each reader reads the cross-reference chain once, when it is made.
    const readings = vi.spyOn(pdfReader.PdfReader.prototype as unknown as { readChain(): unknown }, 'readChain');
    const together = await checkAndPreparePades(input, DESIGN);
    expect(walks()).toBe(1);
    expect(together.check).toEqual(check);
    expect(Buffer.from(together.prepared.pdf).equals(Buffer.from(apart.pdf))).toBe(true);
    expect(together.prepared.digest).toEqual(apart.digest);
    expect(together.prepared.warnings).toEqual(apart.warnings);
    expect(readings).toHaveBeenCalledTimes(1);
    readings.mockClear();
    checkPdfForSigning(pdf, DESIGN);
    await preparePades({ ...input, placement: together.check.placement });
    expect(readings).toHaveBeenCalledTimes(2);
    readings.mockRestore();
  });

  it('a decision for another page or another box is not used: prepare decides', () => {
    const reader = new PdfReader(pdf);
    const { catalog, docMdpPermission } = inspectPdf(reader);
    const position = { kind: 'page' as const, rect: { x1: 300, y1: 300, x2: 540, y2: 372 }, warnings: [] };
    const otherBox: StampDecision = { pageIndex: 0, box: { page: 'last', x: 36, y: 36, width: 200, height: 72 }, position };
    const otherPage: StampDecision = { pageIndex: 1, box: { page: 'last', x: 36, y: 36, width: 240, height: 72 }, position };
    for (const decided of [otherBox, otherPage]) {
      const placed = placeSignature(reader, catalog, FILLED, docMdpPermission, decided);
      expect(placed).toMatchObject({ kind: 'page', stamp: { rect: { x1: 36, y1: 54 } } });
    }
    expect(walks()).toBe(2);
    const same: StampDecision = { ...otherPage, pageIndex: 0 };
    expect(placeSignature(reader, catalog, FILLED, docMdpPermission, same)).toMatchObject({ kind: 'page', stamp: position });
    expect(walks()).toBe(2);
  });

  it('nothing is carried for an invisible signature', () => {
    expect(checkPdfForSigning(pdf, null).placement).toBeNull();
    expect(walks()).toBe(0);
  });
});
