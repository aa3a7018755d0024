import { describe, it, expect, beforeAll } from 'vitest';
import { checkPdf } from '../../../src/pades/pdf/pdf-check';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { verifyPades } from '../../../src/pades/sign/verify';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { listCommittedCorpus } from '../../helpers/pdf-corpus';
import { pdfsig, pdfsigSummary, qpdfCheck } from '../../unit/pades/_pdf-fixtures';

describe('the writer on the committed real-world corpus', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'rsa' });
  });

  for (const { name, bytes } of listCommittedCorpus()) {
    it(`signs ${name}; every earlier signature stays valid`, async () => {
      const before = checkPdf(bytes);
      const prepared = await preparePades({ pdf: bytes, certificateChain: pki.chain, signingTime: new Date('2026-11-22T10:00:00Z'), reason: 'corpus' });
      const signed = finishPades(prepared, signDigest(pki.signerKeyPem, 'rsa', prepared.digest));
      expect(Buffer.from(signed.subarray(0, bytes.length)).equals(Buffer.from(bytes))).toBe(true);
      // An empty signature field is signed into (hand-signature-field.pdf has "OtherTool");
      // otherwise the new field is Signature1, as no corpus file has a SignatureN field yet.
      const emptyField = name === 'hand-signature-field.pdf';
      expect(verifyPades(signed).fieldName).toBe(emptyField ? 'OtherTool' : 'Signature1');
      const after = checkPdf(signed);
      expect(after.signatureCount).toBe(before.signatureCount + 1);
      expect(after.xrefKind).toBe(before.xrefKind === 'hybrid' ? 'table' : before.xrefKind);
      // pdfsig also lists empty signature fields (hand-signature-field.pdf has one), never valid.
      const fieldsBefore = pdfsigSummary(pdfsig(bytes)).total;
      const summary = pdfsigSummary(pdfsig(signed));
      expect(summary).toEqual({ valid: before.signatureCount + 1, total: emptyField ? fieldsBefore : fieldsBefore + 1, totalDocumentSigned: 1 });
      expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
    });
  }
});
