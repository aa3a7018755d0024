import { createHash } from 'node:crypto';
import { describe, it, expect, beforeAll } from 'vitest';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { checkPdf } from '../../../src/pades/pdf/pdf-check';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { verifyPades } from '../../../src/pades/sign/verify';
import {
  byteRangeFor, byteRangePlaceholder, contentsPlaceholder, digestByteRange, embedContents, locateSignatureSlots, patchByteRange,
} from '../../../src/pades/pdf/byterange';
import { assembleCms, buildSignedAttributes } from '../../../src/pades/cms/cms';
import { PdfInputError } from '../../../src/domain/errors';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { latin1Text, pdfsig, pdfsigSummary, qpdfCheck } from '../../unit/pades/_pdf-fixtures';

/** A real certification signature (ISO 32000-1 §12.8.2.2: /Reference DocMDP, catalog /Perms). */
async function certify(pki: TestPki, p: 1 | 2 | 3): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  const ctx = doc.context;
  const sig = ctx.obj({
    Type: 'Sig', Filter: 'Adobe.PPKLite', SubFilter: 'ETSI.CAdES.detached',
    Reference: [{ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', P: p, V: '1.2' } }],
  });
  sig.set(PDFName.of('ByteRange'), byteRangePlaceholder());
  sig.set(PDFName.of('Contents'), contentsPlaceholder(8192));
  const sigRef = ctx.register(sig);
  const field = ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', T: PDFString.of('Certification'), F: 4, Rect: [0, 0, 0, 0], P: page.ref, V: sigRef }));
  page.node.set(PDFName.of('Annots'), ctx.obj([field]));
  doc.catalog.set(PDFName.of('AcroForm'), ctx.obj({ Fields: [field], SigFlags: 3 }));
  doc.catalog.set(PDFName.of('Perms'), ctx.obj({ DocMDP: sigRef }));
  const pdf = await doc.save({ useObjectStreams: false });
  const start = latin1Text(pdf).indexOf('/ByteRange [');
  const slots = locateSignatureSlots(pdf, start - 200, start + 20_000);
  const range = byteRangeFor(slots, pdf.length);
  patchByteRange(pdf, slots.byteRangeOffset, range);
  const signedAttributes = buildSignedAttributes({ documentDigest: digestByteRange(pdf, range), signerCertificate: pki.chain[0]! });
  const digest = createHash('sha256').update(signedAttributes).digest();
  const cms = assembleCms({ signedAttributes, signatureValue: signDigest(pki.signerKeyPem, 'rsa', digest), certificateChain: pki.chain, algorithm: 'rsa' });
  embedContents(pdf, slots.contentsOffset, slots.contentsHexLength, cms);
  return pdf;
}

describe('certified PDFs (DocMDP)', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'rsa' });
  });

  it('signs a PDF certified with P=2 and keeps the certification valid', async () => {
    const certified = await certify(pki, 2);
    expect(pdfsigSummary(pdfsig(certified))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
    expect(checkPdf(certified)).toMatchObject({ docMdpPermission: 2, signatureCount: 1 });
    const prepared = await preparePades({ pdf: certified, certificateChain: pki.chain, signingTime: new Date('2026-11-22T10:00:00Z') });
    const signed = finishPades(prepared, signDigest(pki.signerKeyPem, 'rsa', prepared.digest));
    expect(verifyPades(signed).fieldName).toBe('Signature1');
    const out = pdfsig(signed);
    expect(pdfsigSummary(out)).toEqual({ valid: 2, total: 2, totalDocumentSigned: 1 });
    expect(out).toMatch(/Signature #1:[\s\S]*Signature Field Name: Certification[\s\S]*Signature is Valid[\s\S]*Signature #2:[\s\S]*Signature1[\s\S]*Total document signed/);
    expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
  });

  it('refuses a PDF certified with P=1', async () => {
    const certified = await certify(pki, 1);
    await expect(preparePades({ pdf: certified, certificateChain: pki.chain, signingTime: new Date() })).rejects.toThrow(PdfInputError);
    expect(() => checkPdf(certified)).toThrow('the PDF is certified with DocMDP permission P=1: no change, not even a signature, is allowed');
  });
});
