import { describe, it, expect, beforeAll } from 'vitest';
import { PDFDocument, PDFName } from 'pdf-lib';
import { checkPdf } from '../../../../src/pades/pdf/pdf-check';
import { PdfInputError } from '../../../../src/domain/errors';
import { latin1Text, makeHybridPdf, makePdf, patchText, qpdf } from '../_pdf-fixtures';

function refusal(pdf: Uint8Array): PdfInputError {
  try {
    checkPdf(pdf);
  } catch (e) {
    expect(e).toBeInstanceOf(PdfInputError);
    return e as PdfInputError;
  }
  throw new Error('checkPdf accepted the PDF');
}

/** A PDF whose catalog names a certification signature with DocMDP /P (absent when p is null). */
async function certified(p: number | null): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage();
  const params = p === null ? {} : { P: p };
  const sig = doc.context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    Reference: [{ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', V: '1.2', ...params } }],
  });
  doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: doc.context.register(sig) }));
  return doc.save({ useObjectStreams: false });
}

describe('checkPdf', () => {
  let table: Uint8Array;
  let stream: Uint8Array;
  beforeAll(async () => {
    table = await makePdf({ pages: 3 });
    stream = await makePdf({ pages: 2, objectStreams: true });
  });

  it('reports a classic-table PDF', () => {
    expect(checkPdf(table)).toEqual({
      version: '1.7', pageCount: 3, xrefKind: 'table', signatureCount: 0, docMdpPermission: null, size: table.length,
    });
  });

  it('reads xref streams and object streams (pdf-lib useObjectStreams)', () => {
    expect(checkPdf(stream)).toMatchObject({ pageCount: 2, xrefKind: 'stream', signatureCount: 0 });
  });

  it('reads qpdf object streams and linearized files', () => {
    expect(checkPdf(qpdf(table, ['--object-streams=generate']))).toMatchObject({ pageCount: 3, xrefKind: 'stream' });
    expect(checkPdf(qpdf(table, ['--linearize']))).toMatchObject({ pageCount: 3, xrefKind: 'table' });
    expect(checkPdf(qpdf(table, ['--linearize', '--object-streams=generate']))).toMatchObject({ pageCount: 3, xrefKind: 'stream' });
  });

  it('reads a hybrid-reference file', () => {
    expect(checkPdf(makeHybridPdf())).toMatchObject({ version: '1.5', pageCount: 1, xrefKind: 'hybrid' });
  });

  it('refuses data that does not start with %PDF-, junk before the header included', () => {
    expect(refusal(new TextEncoder().encode('<html>nope</html>')).message).toBe(
      'the data does not start with %PDF- (a PDF header is expected at byte 0)',
    );
    const junk = new Uint8Array(table.length + 3);
    junk.set([0x0a, 0x20, 0x0a]);
    junk.set(table, 3);
    expect(refusal(junk).message).toBe('the data does not start with %PDF- (a PDF header is expected at byte 0)');
  });

  it('refuses a broken startxref without guessing', () => {
    const text = latin1Text(table);
    const at = text.lastIndexOf('startxref');
    const offset = text.slice(at + 10).match(/\d+/)![0];
    const wrong = String(Number(offset) - 7).padStart(offset.length, '0');
    expect(refusal(patchText(table, `startxref\n${offset}`, `startxref\n${wrong}`)).message).toBe(
      `cross-reference data is broken: no cross-reference section at byte ${Number(wrong)}`,
    );
    const noStart = patchText(table, 'startxref', 'startxrex');
    expect(refusal(noStart).message).toBe('cross-reference data is broken: no startxref near the end of the file');
  });

  it('refuses a wrong xref entry for the catalog', () => {
    const text = latin1Text(table);
    const catalogNum = Number(text.match(/\/Root (\d+) 0 R/)![1]);
    const xref = text.slice(text.lastIndexOf('xref\n0 '));
    const entry = xref.split('\n')[2 + catalogNum]!.slice(0, 10);
    const shifted = String(Number(entry) + 1).padStart(10, '0');
    const broken = patchText(table, `${xref.slice(0, xref.indexOf(entry))}${entry}`, `${xref.slice(0, xref.indexOf(entry))}${shifted}`);
    expect(refusal(broken).message).toBe(
      `cross-reference data is broken: object ${catalogNum} 0 is not at byte ${Number(shifted)}`,
    );
  });

  it('refuses an unreadable trailer or catalog', () => {
    const text = latin1Text(table);
    const trailerAt = text.lastIndexOf('trailer\n<<');
    expect(refusal(patchText(table, 'trailer\n<<', 'trailer\n((')).message).toBe(
      `cross-reference data is broken: unreadable trailer at byte ${trailerAt}`,
    );
    // Object 0 is the head of the free list (§7.5.4), never a catalog.
    const root = text.match(/\/Root (\d+) 0 R/)![0];
    expect(refusal(patchText(table, root, root.replace(/\d+/, (d) => '0'.repeat(d.length)))).message).toBe(
      'the catalog (object 0) is unreadable',
    );
  });

  it('reads only the chain and the catalog side: a broken content stream object goes unnoticed', () => {
    const broken = patchText(table, 'obj\n<<\n/Filter /FlateDecode\n/Length', 'obx\n<<\n/Filter /FlateDecode\n/Length');
    expect(checkPdf(broken)).toMatchObject({ pageCount: 3, xrefKind: 'table' });
  });

  it('refuses an encrypted PDF', () => {
    const encrypted = qpdf(table, ['--encrypt', 'user', 'owner', '256', '--']);
    expect(refusal(encrypted).message).toBe(
      'the PDF is encrypted (/Encrypt in the trailer); encrypted PDFs cannot be signed',
    );
  });

  it('refuses DocMDP P=1 and accepts P=2, P=3 and a missing P (which means 2)', async () => {
    expect(refusal(await certified(1)).message).toBe(
      'the PDF is certified with DocMDP permission P=1: no change, not even a signature, is allowed',
    );
    expect(checkPdf(await certified(2)).docMdpPermission).toBe(2);
    expect(checkPdf(await certified(3)).docMdpPermission).toBe(3);
    expect(checkPdf(await certified(null)).docMdpPermission).toBe(2);
  });
});
