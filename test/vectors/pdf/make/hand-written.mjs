// Writes the hand-written corpus PDFs (offsets computed here, so the xref data is exact).
// Usage: node hand-written.mjs <outdir>. See ../README.md for what each file exercises.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2] ?? '.';
const enc = (s) => Buffer.from(s, 'latin1');

/** Serialises numbered objects after `header` and returns the bytes plus each object's offset. */
function body(header, objects, start = 0) {
  const parts = [enc(header)];
  let pos = start + parts[0].length;
  const offsets = {};
  for (const [num, text] of objects) {
    offsets[num] = pos;
    const chunk = enc(`${num} 0 obj\n${text}\nendobj\n`);
    parts.push(chunk);
    pos += chunk.length;
  }
  return { bytes: Buffer.concat(parts), offsets, end: pos };
}

const entry = (off, gen = 0, kind = 'n') =>
  `${String(off).padStart(10, '0')} ${String(gen).padStart(5, '0')} ${kind}\r\n`;

/** A classic table with one subsection from 0 to size-1; missing numbers are free. */
function table(offsets, size) {
  let t = `xref\n0 ${size}\n`;
  for (let i = 0; i < size; i++) t += i === 0 ? entry(0, 65535, 'f') : offsets[i] === undefined ? entry(0, 1, 'f') : entry(offsets[i]);
  return t;
}

const stream = (dict, data) => `<< ${dict} /Length ${Buffer.byteLength(data, 'latin1')} >>\nstream\n${data}\nendstream`;
const text = (s, y = 700) => `BT /F1 24 Tf 72 ${y} Td (${s}) Tj ET`;
const page = (extra = '') => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >>${extra} >>`;
const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

// Hybrid-reference file (ISO 32000-1 §7.5.8.4): a classic table for readers of PDF 1.4 and a
// trailer /XRefStm pointing at an xref stream that locates object 5, stored in object stream 6.
function hybrid() {
  const objstmData = `5 0 ${font}`;
  const first = '5 0 '.length;
  const objs = [
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [3, page()],
    [4, stream('', text('Hybrid-reference file'))],
    [6, stream(`/Type /ObjStm /N 1 /First ${first}`, objstmData)],
  ];
  const b = body('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', objs);
  // W [1 4 2]: type, field 2, field 3. Type 2 entry: object stream 6, index 0.
  const row = Buffer.from([2, 0, 0, 0, 6, 0, 0]);
  const xrefStmDict = `<< /Type /XRef /Size 8 /Index [5 1] /W [1 4 2] /Length ${row.length} >>\nstream\n`;
  const xrefStm = Buffer.concat([enc(`7 0 obj\n${xrefStmDict}`), row, enc('\nendstream\nendobj\n')]);
  const offsets = { ...b.offsets, 7: b.end };
  const tablePos = b.end + xrefStm.length;
  const tail = enc(`${table(offsets, 8)}trailer\n<< /Size 8 /Root 1 0 R /XRefStm ${b.end} >>\nstartxref\n${tablePos}\n%%EOF\n`);
  return Buffer.concat([b.bytes, xrefStm, tail]);
}

// A file that already carries one incremental update (ISO 32000-1 §7.5.6): the update replaces
// the page content and adds /Info, with a trailer /Prev pointing at the original table.
function incremental() {
  const base = body('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', [
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [3, page()],
    [4, stream('', text('Original revision'))],
    [5, font],
  ]);
  const xref1 = base.end;
  const rev1 = Buffer.concat([base.bytes, enc(`${table(base.offsets, 6)}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref1}\n%%EOF\n`)]);
  const upd = body('', [
    [4, stream('', `${text('Updated revision')} ${text('second line', 660)}`)],
    [6, '<< /Title (Incrementally updated) /Producer (localsign hand-written corpus) >>'],
  ], rev1.length);
  const xref2 = upd.end;
  const t = `xref\n0 1\n${entry(0, 65535, 'f')}4 1\n${entry(upd.offsets[4])}6 1\n${entry(upd.offsets[6])}`;
  const tail = enc(`${t}trailer\n<< /Size 7 /Root 1 0 R /Info 6 0 R /Prev ${xref1} >>\nstartxref\n${xref2}\n%%EOF\n`);
  return Buffer.concat([rev1, upd.bytes, tail]);
}

// An empty signature field (ISO 32000-1 §12.7.4.5) for `mutool sign` to fill: mutool signs
// existing fields only.
function signatureField() {
  const b = body('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', [
    [1, '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R] >> >>'],
    [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [3, page(' /Annots [6 0 R]')],
    [4, stream('', text('Signed by another tool'))],
    [5, font],
    [6, '<< /Type /Annot /Subtype /Widget /FT /Sig /T (OtherTool) /Rect [0 0 0 0] /F 132 /P 3 0 R >>'],
  ]);
  return Buffer.concat([b.bytes, enc(`${table(b.offsets, 7)}trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n${b.end}\n%%EOF\n`)]);
}

writeFileSync(join(out, 'hand-hybrid-xref.pdf'), hybrid());
writeFileSync(join(out, 'hand-incremental-update.pdf'), incremental());
writeFileSync(join(out, 'hand-signature-field.pdf'), signatureField());
