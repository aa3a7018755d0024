import { describe, it, expect, beforeAll } from 'vitest';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { verifyPades } from '../../../src/pades/sign/verify';
import { PdfInputError, SigningError } from '../../../src/domain/errors';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { latin1Text, makeNestedPageTreePdf, makePdf, patchText, pdfsig, pdfsigSummary, qpdf, qpdfCheck } from '../../unit/pades/_pdf-fixtures';

const signingTime = new Date('2026-11-22T10:00:00Z');

async function sign(pdf: Uint8Array, pki: TestPki, stamp: Parameters<typeof preparePades>[0]['stamp'] = null): Promise<Uint8Array> {
  const prepared = await preparePades({ pdf, certificateChain: pki.chain, signingTime, stamp, reason: 'Approved', signerName: 'Ωmega Signer' });
  return finishPades(prepared, signDigest(pki.signerKeyPem, 'rsa', prepared.digest));
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => { throw new Error('expected a rejection'); },
    (e: Error) => e,
  );
}

/** Last field of the AcroForm as pdf-lib reads it (test-side cross-check of what we wrote). */
async function lastField(pdf: Uint8Array): Promise<{ doc: PDFDocument; field: PDFDict; fields: PDFArray }> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const acroForm = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict);
  const fields = acroForm.lookup(PDFName.of('Fields'), PDFArray);
  return { doc, field: fields.lookup(fields.size() - 1, PDFDict), fields };
}

describe('signature field structure', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'rsa' });
  });

  it('adds Signature2 next to an existing Signature1 field, indirect AcroForm and indirect /Annots array', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    doc.getForm().createTextField('Signature1').addToPage(page, { x: 10, y: 10, width: 100, height: 20 });
    const annots = page.node.lookup(PDFName.of('Annots'), PDFArray);
    page.node.set(PDFName.of('Annots'), doc.context.register(annots));
    const input = await doc.save({ useObjectStreams: false });
    const signed = await sign(input, pki);
    const { field, fields, doc: out } = await lastField(signed);
    expect(fields.size()).toBe(2);
    expect(field.lookup(PDFName.of('T'), PDFString).decodeText()).toBe('Signature2');
    expect(field.get(PDFName.of('FT'))).toBe(PDFName.of('Sig'));
    expect(field.lookup(PDFName.of('F'))?.toString()).toBe('4');
    expect(field.lookup(PDFName.of('Rect'), PDFArray).toString()).toBe('[ 0 0 0 0 ]');
    const ap = field.lookup(PDFName.of('AP'), PDFDict).get(PDFName.of('N'));
    expect(ap).toBeInstanceOf(PDFRef);
    expect(out.getPages()[0]!.node.lookup(PDFName.of('Annots'), PDFArray).size()).toBe(2);
    expect(out.catalog.lookup(PDFName.of('AcroForm'), PDFDict).get(PDFName.of('SigFlags'))?.toString()).toBe('3');
    expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
    expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
  });

  it('updates an AcroForm inline in the catalog and writes text strings as PDFDocEncoding or UTF-16BE', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [] }));
    const input = await doc.save({ useObjectStreams: false });
    const signed = await sign(input, pki);
    const tail = latin1Text(signed.subarray(input.length));
    expect(tail).toMatch(/\/AcroForm <<\n\/Fields \[ \d+ 0 R \]\n\/SigFlags 3\n>>/);
    expect(tail).toContain('/Reason (Approved)');
    expect(tail).toContain(`/Name <${Buffer.from('\ufeffΩmega Signer', 'utf16le').swap16().toString('hex').toUpperCase()}>`);
    expect(tail).toContain("/M (D:20261122100000+00'00')");
    expect(tail).toContain('/SubFilter /ETSI.CAdES.detached');
    expect(verifyPades(signed).fieldName).toBe('Signature1');
  });

  it('adds an EOL after an input that lacks one and keeps ID[0] with a new ID[1]', async () => {
    const full = qpdf(await makePdf(), []); // qpdf writes a trailer /ID, pdf-lib does not
    const input = full[full.length - 1] === 0x0a ? full.subarray(0, full.length - 1) : full;
    expect(input[input.length - 1]).not.toBe(0x0a);
    const signed = await sign(input, pki);
    expect(Buffer.from(signed.subarray(0, input.length)).equals(Buffer.from(input))).toBe(true);
    expect(signed[input.length]).toBe(0x0a);
    const ids = [...latin1Text(signed).matchAll(/\/ID \[ ?<([0-9A-Fa-f]+)> ?<([0-9A-Fa-f]+)> ?\]/g)];
    expect(ids.length).toBe(2);
    expect(ids[1]![1]!.toLowerCase()).toBe(ids[0]![1]!.toLowerCase());
    expect(ids[1]![2]).not.toBe(ids[0]![2]);
    expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
  });

  it('rewrites an indirect /Fields array and keeps a non-zero generation', async () => {
    // Page 4 of the nested tree (object 13) becomes generation 1: header, reference and xref entry.
    let text = latin1Text(makeNestedPageTreePdf()).replace('13 0 obj', '13 1 obj').replace('13 0 R', '13 1 R');
    const lines = text.split('\n');
    const xrefLine = lines.indexOf('xref') + 2 + 13;
    lines[xrefLine] = lines[xrefLine]!.replace(' 00000 n', ' 00001 n');
    text = lines.join('\n');
    // An update by "another tool": the catalog gets an inline AcroForm whose /Fields is object 5,
    // an indirect array (object 5 was a free entry until now).
    const prev = text.slice(text.lastIndexOf('startxref') + 10).trim().split('\n')[0];
    const catalog = '1 0 obj\n<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields 5 0 R >> >>\nendobj\n';
    const fields = '5 0 obj\n[ ]\nendobj\n';
    const at = (n: number) => `${String(n).padStart(10, '0')} 00000 n\r\n`;
    const xrefAt = text.length + catalog.length + fields.length;
    const update = `${catalog}${fields}xref\n1 1\n${at(text.length)}5 1\n${at(text.length + catalog.length)}trailer\n<< /Size 15 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const input = new Uint8Array(Buffer.from(text + update, 'latin1'));
    const prepared = await preparePades({ pdf: input, certificateChain: pki.chain, signingTime, stamp: { page: 4, x: 10, y: 10, width: 80, height: 30, lines: [{ text: 'ok', size: 8 }] } });
    const signed = finishPades(prepared, signDigest(pki.signerKeyPem, 'rsa', prepared.digest));
    const tail = latin1Text(signed.subarray(input.length));
    expect(tail).toMatch(/(^|\n)5 0 obj\n\[ \d+ 0 R \]\nendobj\n/);
    expect(tail).toMatch(/\n13 1 obj\n<<\n\/Type \/Page\n\/Parent 4 0 R\n\/Annots \[ \d+ 0 R \]\n>>/);
    expect(tail).toMatch(/ 00001 n\r\n/);
    // The inline AcroForm gains /SigFlags, so the catalog is rewritten, still pointing at object 5.
    expect(tail).toMatch(/\n1 0 obj\n<<\n\/Type \/Catalog\n\/Pages 2 0 R\n\/AcroForm <<\n\/Fields 5 0 R\n\/SigFlags 3\n>>\n>>/);
    expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
    expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
  });

  it('numbers new objects past every listed one when /Size is too small', async () => {
    const pdf = await makePdf();
    const size = latin1Text(pdf).match(/\/Size (\d+)/)![1]!;
    expect(size.length).toBe(1);
    const input = patchText(pdf, `/Size ${size}`, '/Size 3');
    const signed = await sign(input, pki);
    const tail = latin1Text(signed.subarray(input.length));
    // The new objects: appearance form (/BBox first), signature, widget, AcroForm (/Fields first).
    const created = [...tail.matchAll(/(\d+) 0 obj\n<<\n\/(?:BBox|Type \/Sig|Type \/Annot|Fields)/g)].map((m) => Number(m[1]));
    expect(created.length).toBe(4);
    for (const num of created) expect(num).toBeGreaterThanOrEqual(Number(size));
    expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
    expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
  });

  it('signs a PDF certified with DocMDP P=2', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const sig = doc.context.obj({ Type: 'Sig', Reference: [{ TransformMethod: 'DocMDP', TransformParams: { P: 2 } }] });
    doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: doc.context.register(sig) }));
    const signed = await sign(await doc.save({ useObjectStreams: true }), pki);
    expect(verifyPades(signed).fieldName).toBe('Signature1');
    expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
  });

  it('refuses encrypted input and a stamp page beyond the page count with PdfInputError', async () => {
    const input = await makePdf({ pages: 2 });
    const encrypted = await rejection(sign(qpdf(input, ['--encrypt', 'u', 'o', '256', '--']), pki));
    expect(encrypted).toBeInstanceOf(PdfInputError);
    expect(encrypted.message).toBe('the PDF is encrypted (/Encrypt in the trailer); encrypted PDFs cannot be signed');
    const stamp = { page: 5, x: 10, y: 10, width: 100, height: 40, lines: [{ text: 'x', size: 8 }] };
    const beyond = await rejection(sign(input, pki, stamp));
    expect(beyond).toBeInstanceOf(PdfInputError);
    expect(beyond.message).toBe('stamp page 5 is beyond the page count (2)');
  });

  it('throws SigningError when the CMS does not fit the reserved /Contents', async () => {
    const prepared = await preparePades({ pdf: await makePdf(), certificateChain: pki.chain, signingTime });
    const token = new Uint8Array(prepared.contentsHexLength);
    token.set([0x30, 0x82, (token.length - 4) >> 8, (token.length - 4) & 0xff]);
    let error: unknown;
    try {
      finishPades(prepared, signDigest(pki.signerKeyPem, 'rsa', prepared.digest), { timestampToken: token });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SigningError);
    expect((error as Error).message).toMatch(/^the CMS signature \(\d+ bytes\) does not fit the reserved \/Contents \(\d+ bytes\)$/);
  });

  it('reserves room for a timestamp token when asked', async () => {
    const pdf = await makePdf();
    const plain = await preparePades({ pdf, certificateChain: pki.chain, signingTime });
    const bt = await preparePades({ pdf, certificateChain: pki.chain, signingTime, reserveTimestamp: true });
    expect(bt.contentsHexLength - plain.contentsHexLength).toBeGreaterThanOrEqual(2 * 8192);
  });
});

