import { describe, it, expect, beforeAll } from 'vitest';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { appendCatalogUpdate, latin1Text, makeHybridPdf, makePdf, pdfsig, pdfsigSummary, qpdf, qpdfCheck } from '../../unit/pades/_pdf-fixtures';

const signingTime = new Date('2026-11-22T10:00:00Z');

async function sign(pdf: Uint8Array, pki: TestPki, alg: 'rsa' | 'p256', extra: { reason?: string } = {}): Promise<Uint8Array> {
  const prepared = await preparePades({ pdf, certificateChain: pki.chain, signingTime, reason: extra.reason ?? 'Approved', location: 'Madrid', signerName: 'Test Signer' });
  return finishPades(prepared, signDigest(pki.signerKeyPem, alg, prepared.digest));
}

function expectPrefix(input: Uint8Array, output: Uint8Array): void {
  expect(Buffer.from(output.subarray(0, input.length)).equals(Buffer.from(input))).toBe(true);
}

describe('invisible PAdES signature through the incremental writer', () => {
  let rsa: TestPki;
  let p256: TestPki;
  beforeAll(async () => {
    [rsa, p256] = await Promise.all([createTestPki({ algorithm: 'rsa' }), createTestPki({ algorithm: 'p256' })]);
  });

  const cases: [string, () => Promise<Uint8Array>, 'table' | 'stream'][] = [
    ['pdf-lib xref table', () => makePdf({ pages: 2 }), 'table'],
    ['pdf-lib xref stream + object streams', () => makePdf({ pages: 2, objectStreams: true }), 'stream'],
    ['qpdf object streams', async () => qpdf(await makePdf({ pages: 2 }), ['--object-streams=generate']), 'stream'],
    ['qpdf linearized', async () => qpdf(await makePdf({ pages: 3 }), ['--linearize']), 'table'],
    ['hand-written hybrid', async () => makeHybridPdf(), 'table'],
    ['file with an earlier incremental update', async () => appendCatalogUpdate(await makePdf()), 'table'],
  ];

  for (const [name, build, kind] of cases) {
    it(`signs a ${name} file (RSA) and pdfsig, qpdf accept it`, async () => {
      const input = await build();
      const signed = await sign(input, rsa, 'rsa');
      expectPrefix(input, signed);
      const tail = latin1Text(signed.subarray(input.length));
      expect(tail.includes('\nxref\n')).toBe(kind === 'table');
      expect(tail.includes('/Type /XRef')).toBe(kind === 'stream');
      expect(tail).not.toContain('/XRefStm');
      // The catalog is rewritten from its newest version (the earlier update's /Lang survives).
      if (name.startsWith('file with')) expect(tail).toContain('/Lang (es-ES)');
      const out = pdfsig(signed);
      expect(pdfsigSummary(out)).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
      expect(qpdfCheck(signed)).toContain('No syntax or stream encoding errors found');
    });
  }

  it('signs with P-256 and keeps three signatures in a row valid', async () => {
    let pdf = await makePdf({ pages: 1, objectStreams: true });
    const inputs: Uint8Array[] = [];
    for (let i = 0; i < 3; i++) {
      inputs.push(pdf);
      pdf = await sign(pdf, i % 2 ? rsa : p256, i % 2 ? 'rsa' : 'p256', { reason: `Round ${i + 1}` });
    }
    for (const input of inputs) expectPrefix(input, pdf);
    const out = pdfsig(pdf);
    expect(pdfsigSummary(out)).toEqual({ valid: 3, total: 3, totalDocumentSigned: 1 });
    expect(out).toMatch(/Signature #3:[\s\S]*Signature Type: ETSI\.CAdES\.detached[\s\S]*Total document signed/);
    expect(out).toContain('Signature Field Name: Signature3');
    expect(qpdfCheck(pdf)).toContain('No syntax or stream encoding errors found');
  });
});
