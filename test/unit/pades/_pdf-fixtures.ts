/**
 * PDFs for the PAdES structure tests, built in the test: pdf-lib (xref table, or xref stream with
 * object streams), qpdf transforms, and a hand-written hybrid-reference file (ISO 32000-1 §7.5.8.4).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { concat } from '../../../src/der/der';
import { tempDir } from '../../helpers/temp-dir';

export const tmp = tempDir('localsign-pades-');
let counter = 0;

export function tmpFile(name: string, bytes?: Uint8Array): string {
  const path = join(tmp, `${counter++}-${name}`);
  if (bytes) writeFileSync(path, bytes);
  return path;
}

export async function makePdf(o: { pages?: number; objectStreams?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < (o.pages ?? 1); i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Page ${i + 1}`, { x: 50, y: 780, size: 20, font });
  }
  return doc.save({ useObjectStreams: o.objectStreams ?? false });
}

/** Runs qpdf on `input` with `args` and returns the output file's bytes (exit 3 = warnings). */
export function qpdf(input: Uint8Array, args: string[]): Uint8Array {
  const inPath = tmpFile('in.pdf', input);
  const outPath = tmpFile('out.pdf');
  try {
    execFileSync('qpdf', [...args, inPath, outPath], { stdio: 'pipe' });
  } catch (e) {
    if ((e as { status?: number }).status !== 3) throw e;
  }
  return new Uint8Array(readFileSync(outPath));
}

/** Runs a tool and returns stdout + stderr, whatever its exit status (pdfsig exits non-zero on some failures). */
export function runTool(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: string };
    if (err.code === 'ENOENT') throw new Error(`${cmd} is not installed`);
    return `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
}

export function qpdfCheck(pdf: Uint8Array): string {
  return runTool('qpdf', ['--check', tmpFile('check.pdf', pdf)]);
}

export function pdfsig(pdf: Uint8Array): string {
  return runTool('pdfsig', [tmpFile('sig.pdf', pdf)]);
}

const enc = (s: string) => new TextEncoder().encode(s);


/**
 * A hybrid-reference file: objects 1-3 and 5 top-level, listed in the classic table; the page's
 * font dictionary (object 4) lives in object stream 5, reachable only via the /XRefStm stream 6.
 */
export function makeHybridPdf(): Uint8Array {
  const parts: Uint8Array[] = [enc('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n')];
  const offsets: Record<number, number> = {};
  let length = parts[0]!.length;
  const add = (num: number, body: Uint8Array | string) => {
    offsets[num] = length;
    const bytes = concat([enc(`${num} 0 obj\n`), typeof body === 'string' ? enc(body) : body, enc('\nendobj\n')]);
    parts.push(bytes);
    length += bytes.length;
  };
  add(1, '<< /Type /Catalog /Pages 2 0 R >>');
  add(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  const content = 'BT /F1 18 Tf 50 780 Td (Hybrid file) Tj ET';
  add(7, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  add(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 7 0 R /Resources << /Font << /F1 4 0 R >> >> >>');
  const objstmBody = '4 0 ';
  const objstmData = `${objstmBody}<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>`;
  add(5, `<< /Type /ObjStm /N 1 /First ${objstmBody.length} /Length ${objstmData.length} >>\nstream\n${objstmData}\nendstream`);
  // XRefStm rows (W [1 4 2]): only object 4, compressed in stream 5 at index 0.
  const row = Uint8Array.of(2, 0, 0, 0, 5, 0, 0);
  const packed = deflateSync(row);
  add(6, concat([enc(`<< /Type /XRef /Size 8 /W [1 4 2] /Index [4 1] /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`), packed, enc('\nendstream')]));
  const xrefOffset = length;
  const pad = (n: number) => String(n).padStart(10, '0');
  let table = 'xref\n0 8\n0000000000 65535 f \n';
  for (let i = 1; i < 8; i++) table += i === 4 ? '0000000000 00001 f \n' : `${pad(offsets[i]!)} 00000 n \n`;
  table += `trailer\n<< /Size 8 /Root 1 0 R /XRefStm ${offsets[6]} /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>] >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  parts.push(enc(table));
  return concat(parts);
}

/** Replaces the first occurrence of `from` (latin1) by `to` of the same length. */
export function patchText(pdf: Uint8Array, from: string, to: string): Uint8Array {
  if (from.length !== to.length) throw new Error('patchText keeps the length');
  const text = Buffer.from(pdf).toString('latin1');
  const at = text.indexOf(from);
  if (at < 0) throw new Error(`${from} not found`);
  const out = new Uint8Array(pdf);
  out.set(Buffer.from(to, 'latin1'), at);
  return out;
}

export const latin1Text = (pdf: Uint8Array): string => Buffer.from(pdf).toString('latin1');

/** Counts pdfsig's per-signature verdicts. */
export function pdfsigSummary(output: string): { valid: number; total: number; totalDocumentSigned: number } {
  return {
    valid: (output.match(/Signature Validation: Signature is Valid\./g) ?? []).length,
    total: (output.match(/^Signature #\d+:/gm) ?? []).length,
    totalDocumentSigned: (output.match(/Total document signed/g) ?? []).length,
  };
}

/**
 * Appends a hand-written incremental update that rewrites the catalog (adding /Lang), the way
 * another tool would, chained by /Prev to the file's last table (ISO 32000-1 §7.5.6).
 */
export function appendCatalogUpdate(pdf: Uint8Array): Uint8Array {
  const text = latin1Text(pdf);
  const rootNum = Number(text.match(/\/Root (\d+) 0 R/)![1]);
  const size = Number([...text.matchAll(/\/Size (\d+)/g)].pop()![1]);
  const prev = Number(text.slice(text.lastIndexOf('startxref') + 9).trim().split(/\s/)[0]);
  const pagesNum = Number(text.match(/\/Pages (\d+) 0 R/)![1]);
  const body = `${rootNum} 0 obj\n<< /Type /Catalog /Pages ${pagesNum} 0 R /Lang (es-ES) >>\nendobj\n`;
  const start = pdf.length;
  const xrefAt = start + body.length;
  const tail = `${body}xref\n${rootNum} 1\n${String(start).padStart(10, '0')} 00000 n\r\ntrailer\n<< /Size ${size} /Root ${rootNum} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array([...pdf, ...Buffer.from(tail, 'latin1')]);
}

/**
 * A page tree two levels deep (ISO 32000-1 §7.7.3.2): root 2 -> nodes 3 (pages 10, 11) and
 * 4 (pages 12, 13, 14); page N (from 1) is object 9 + N.
 */
export function makeNestedPageTreePdf(): Uint8Array {
  const objects: Record<number, string> = {
    1: '<< /Type /Catalog /Pages 2 0 R >>',
    2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 5 /MediaBox [0 0 300 300] >>',
    3: '<< /Type /Pages /Parent 2 0 R /Kids [10 0 R 11 0 R] /Count 2 >>',
    4: '<< /Type /Pages /Parent 2 0 R /Kids [12 0 R 13 0 R 14 0 R] /Count 3 >>',
  };
  for (let p = 10; p <= 14; p++) objects[p] = `<< /Type /Page /Parent ${p < 12 ? 3 : 4} 0 R >>`;
  let out = '%PDF-1.4\n';
  const offsets = new Map<number, number>();
  for (const [num, body] of Object.entries(objects)) {
    offsets.set(Number(num), out.length);
    out += `${num} 0 obj\n${body}\nendobj\n`;
  }
  const xrefAt = out.length;
  out += 'xref\n0 15\n0000000000 65535 f \n';
  for (let n = 1; n < 15; n++) {
    const off = offsets.get(n);
    out += off === undefined ? '0000000000 00000 f \n' : `${String(off).padStart(10, '0')} 00000 n \n`;
  }
  out += `trailer\n<< /Size 15 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
