// Writes the pdf-lib corpus PDFs. Usage: node pdf-lib.mjs <outdir> (run from the repo so that
// node_modules/pdf-lib resolves). See ../README.md.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const out = process.argv[2] ?? '.';
// Fixed dates and ids so that rerunning the script gives the same bytes.
const when = new Date('2026-11-01T09:00:00Z');

async function base(title, pages) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.setTitle(title);
  doc.setProducer('pdf-lib (localsign corpus)');
  doc.setCreationDate(when);
  doc.setModificationDate(when);
  for (let i = 1; i <= pages; i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`${title}, page ${i}`, { x: 50, y: 780, size: 18, font });
  }
  return doc;
}

const table = await base('pdf-lib xref table', 2);
writeFileSync(join(out, 'pdflib-xref-table.pdf'), await table.save({ useObjectStreams: false }));

// pdf-lib's default save writes a cross-reference stream and object streams (ISO 32000-1 §7.5.7-8).
const streams = await base('pdf-lib xref stream', 2);
writeFileSync(join(out, 'pdflib-xref-stream.pdf'), await streams.save({ useObjectStreams: true }));

// An AcroForm with text fields (ISO 32000-1 §12.7): signing must keep the form and its fields.
const form = await base('pdf-lib AcroForm', 1);
const page = form.getPage(0);
const f = form.getForm();
for (const [i, name] of ['given_name', 'family_name', 'city'].entries()) {
  const field = f.createTextField(name);
  field.setText(`value ${i + 1}`);
  field.addToPage(page, { x: 50, y: 700 - i * 40, width: 250, height: 24 });
}
f.createCheckBox('agree').addToPage(page, { x: 50, y: 560, width: 16, height: 16 });
writeFileSync(join(out, 'pdflib-acroform.pdf'), await form.save({ useObjectStreams: false }));
