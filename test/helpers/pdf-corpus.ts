/**
 * The corpus of real-world PDFs the PAdES engine must sign: small files committed under
 * test/vectors/pdf/ (made by test/vectors/pdf/make/make-corpus.sh; README.md there says how each
 * was made) plus two big ones generated here at test time, because committing them would bloat
 * the repository (STYLE: no PDF over 1 MB in git).
 */
import { constants, createPrivateKey, privateEncrypt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { p256 } from '@noble/curves/nist.js';
import { PDFDocument, StandardFonts, rgb, type PDFFont } from 'pdf-lib';
import { checkPdf } from '../../src/pades/pdf/pdf-check';
import { finishPades } from '../../src/pades/sign/finish';
import { preparePades } from '../../src/pades/sign/prepare';
import { ecdsaRawToDer } from '../../src/pades/cms/cms';
import type { PadesPrepareInput, PreparedPades } from '../../src/pades/sign/types';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'pdf');

export interface CorpusPdf {
  name: string;
  bytes: Uint8Array;
  /** Generated at test time and slow to verify: sign it with one algorithm only. */
  generated: boolean;
}

/** The committed corpus, sorted by file name. */
export function listCommittedCorpus(): CorpusPdf[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(CORPUS_DIR, name))), generated: false }));
}

/** 500 pages written by pdf-lib with a cross-reference table: many objects, a deep page tree. */
export async function generateManyPages(pages = 500): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.setProducer('pdf-lib (localsign corpus, generated)');
  doc.setCreationDate(new Date('2026-11-01T09:00:00Z'));
  doc.setModificationDate(new Date('2026-11-01T09:00:00Z'));
  for (let i = 1; i <= pages; i++) doc.addPage([595, 842]).drawText(`Page ${i} of ${pages}`, { x: 50, y: 780, size: 14, font });
  return doc.save({ useObjectStreams: false });
}

/**
 * About `megabytes` MB: one page showing an uncompressed RGB image (ISO 32000-1 §8.9.5), written
 * by hand so that generation is a single buffer fill and the digest covers every byte of it.
 */
export function generateLargeImage(megabytes = 20): Uint8Array {
  const side = Math.ceil(Math.sqrt((megabytes * 1024 * 1024) / 3));
  const pixels = Buffer.alloc(side * side * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7 + (i >> 12)) & 0xff; // not all zeros
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let pos = 0;
  const push = (b: Buffer | string): void => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    pos += buf.length;
  };
  const obj = (num: number, body: string): void => {
    offsets[num] = pos;
    push(`${num} 0 obj\n${body}\nendobj\n`);
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>');
  const content = 'q 495 0 0 495 50 300 cm /Im1 Do Q';
  obj(4, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  offsets[5] = pos;
  push(`5 0 obj\n<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length ${pixels.length} >>\nstream\n`);
  push(pixels);
  push('\nendstream\nendobj\n');
  const xref = pos;
  let table = 'xref\n0 6\n0000000000 65535 f\r\n';
  for (let i = 1; i <= 5; i++) table += `${String(offsets[i]).padStart(10, '0')} 00000 n\r\n`;
  push(`${table}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}

/** Every corpus PDF: the committed files, then the 500-page and the 20 MB generated ones. */
export async function listCorpus(): Promise<CorpusPdf[]> {
  return [
    ...listCommittedCorpus(),
    { name: 'generated-500-pages.pdf', bytes: await generateManyPages(), generated: true },
    { name: 'generated-20mb-image.pdf', bytes: generateLargeImage(), generated: true },
  ];
}

// RFC 8017 §9.2 note 1: DER prefix of DigestInfo { sha256, NULL } before the 32-byte hash.
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** The fixed inputs every corpus signature uses, so outputs are comparable between runs. */
export const CORPUS_SIGNING = {
  signingTime: new Date('2026-11-22T10:00:00Z'),
  reason: 'Corpus',
  location: 'Test',
  signerName: 'Tester',
} as const;

/**
 * Signs `pdf` with the engine the way the service does (checkPdf, preparePades, a chip-style
 * signature over prepared.digest, finishPades) and returns the output with what was prepared.
 */
export async function signWithEngine(
  pdf: Uint8Array,
  key: { chain: Uint8Array[]; signerKeyPem: string; algorithm: 'rsa' | 'p256' },
  extra: Pick<PadesPrepareInput, 'stamp' | 'certify'> = {},
): Promise<{ output: Uint8Array; prepared: PreparedPades }> {
  checkPdf(pdf);
  const prepared = await preparePades({ pdf, certificateChain: key.chain, ...CORPUS_SIGNING, ...extra });
  let signature: Uint8Array;
  if (key.algorithm === 'rsa') {
    // A chip's CKM_RSA_PKCS: PKCS#1 v1.5 padding over DigestInfo(SHA-256) ‖ digest.
    const input = Buffer.concat([SHA256_DIGEST_INFO, prepared.digest]);
    signature = new Uint8Array(privateEncrypt({ key: key.signerKeyPem, padding: constants.RSA_PKCS1_PADDING }, input));
  } else {
    // A chip's CKM_ECDSA: raw r‖s over the digest as given (no second hash), then DER for CMS.
    const d = Buffer.from(createPrivateKey(key.signerKeyPem).export({ format: 'jwk' }).d ?? '', 'base64url');
    signature = ecdsaRawToDer(p256.sign(prepared.digest, d, { prehash: false }));
  }
  return { output: finishPades(prepared, signature), prepared };
}

const LOREM =
  'The parties agree that the goods are delivered within thirty days and paid within sixty; each page of this agreement, its footnotes and its footer are covered by the signature.';

/** A pdf-lib document with fixed metadata (same bytes on every run) and Helvetica embedded. */
async function generatedDocument(): Promise<{ doc: PDFDocument; font: PDFFont }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.setProducer('pdf-lib (localsign corpus, generated)');
  doc.setCreationDate(new Date('2026-11-01T09:00:00Z'));
  doc.setModificationDate(new Date('2026-11-01T09:00:00Z'));
  return { doc, font };
}

/** Lines of about `width` points of running text in Helvetica at `size`. */
function wrap(font: PDFFont, size: number, width: number, count: number): string[] {
  const words = LOREM.split(' ');
  const lines: string[] = [];
  let line = '';
  for (let i = 0; lines.length < count; i++) {
    const word = words[i % words.length]!;
    const next = line ? `${line} ${word}` : word;
    if (font.widthOfTextAtSize(next, size) > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  return lines;
}

/**
 * Pages the way office software lays them out: body text from the top margin, a footnote above
 * a rule at the foot of the last page, and a footer line "page n of N" on every page. The last
 * page's text stops halfway down, so a stamp whose design box covers the footer has room above.
 */
export async function generateFooterDocument(pages = 3): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  doc.setProducer('pdf-lib (localsign corpus, generated)');
  doc.setCreationDate(new Date('2026-11-01T09:00:00Z'));
  doc.setModificationDate(new Date('2026-11-01T09:00:00Z'));
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Agreement, part ${p}`, { x: 56, y: 780, size: 16, font: bold });
    const lineCount = p === pages ? 24 : 52;
    wrap(font, 11, 483, lineCount).forEach((text, i) => page.drawText(text, { x: 56, y: 750 - i * 13.5, size: 11, font }));
    if (p === pages) {
      page.drawLine({ start: { x: 56, y: 82 }, end: { x: 200, y: 82 }, thickness: 0.5 });
      page.drawText('1 Footnote: delivery days are calendar days, counted from the order.', { x: 56, y: 70, size: 8, font });
    }
    const footer = `Supply agreement SA-2026-114 - page ${p} of ${pages}`;
    page.drawText(footer, { x: (595 - font.widthOfTextAtSize(footer, 9)) / 2, y: 30, size: 9, font });
  }
  return doc.save({ useObjectStreams: false });
}

/** One page of text from top to bottom and edge to edge in small print: no free area fits a stamp. */
export async function generateFullPage(): Promise<Uint8Array> {
  const { doc, font } = await generatedDocument();
  const page = doc.addPage([595, 842]);
  wrap(font, 9, 575, 84).forEach((text, i) => page.drawText(text, { x: 10, y: 830 - i * 10, size: 9, font }));
  return doc.save({ useObjectStreams: false });
}

/**
 * A page with background art (a coloured panel over the whole page, drawn first) and a short
 * text at the top and in the footer: the panel is not content a stamp must avoid, the text is.
 */
export async function generateBackgroundArt(): Promise<Uint8Array> {
  const { doc, font } = await generatedDocument();
  const page = doc.addPage([595, 842]);
  page.drawRectangle({ x: 0, y: 0, width: 595, height: 842, color: rgb(0.85, 0.9, 1) });
  wrap(font, 11, 483, 10).forEach((text, i) => page.drawText(text, { x: 56, y: 780 - i * 14, size: 11, font }));
  page.drawText('Certificate of delivery - background art by the sender', { x: 56, y: 40, size: 10, font });
  return doc.save({ useObjectStreams: false });
}
