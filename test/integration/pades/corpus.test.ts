/**
 * Every corpus PDF (test/vectors/pdf/README.md) signed by the engine with an RSA and a P-256 test
 * PKI, then judged by tools that share no code with it: pdfsig, qpdf, mutool, openssl cms and
 * our own B-B lint. The generated 500-page and 20 MB files use RSA only to keep the run short.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byteRangeOf, findSignatureDictionaries } from '../../helpers/pades-lint';
import { CORPUS_DIR, listCorpus, signWithEngine, type CorpusPdf } from '../../helpers/pdf-corpus';
import { extractCms, inspectSignedPdf, mutoolVerify, opensslCmsVerify, qpdfCheck, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

const corpus = await listCorpus();
const algorithms = ['rsa', 'p256'] as const;
const cases = corpus.flatMap((pdf) => (pdf.generated ? (['rsa'] as const) : algorithms).map((a) => [pdf.name, a, pdf] as const));

/** Signatures already in the input that are not PAdES B-B, with the lint's exact findings. */
const FOREIGN_PROBLEMS: Record<string, string[]> = {
  'mutool-signed.pdf': [
    'signature 1: /SubFilter is /adbe.pkcs7.detached, expected /ETSI.CAdES.detached',
    'signature 1: digest algorithm is 1.3.14.3.2.26, expected SHA-256',
    'signature 1: signed attribute signing-time is present (PAdES puts the time in /M)',
    'signature 1: signed attribute signing-certificate-v2 is missing',
  ],
};

const pkis: Partial<Record<'rsa' | 'p256', TestPki>> = {};
let dir: string;

beforeAll(async () => {
  dir = tempDir('localsign-corpus-');
  pkis.rsa = await createTestPki({ algorithm: 'rsa', signerCn: 'Corpus Signer RSA' });
  pkis.p256 = await createTestPki({ algorithm: 'p256', signerCn: 'Corpus Signer P-256' });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const p of Object.values(pkis)) if (p) rmSync(p.dir, { recursive: true, force: true });
});

describe('PAdES B-B over the PDF corpus', () => {
  it('has the committed corpus and both generated files', () => {
    expect(corpus.map((c: CorpusPdf) => c.name)).toEqual([
      'cairo.pdf', 'groff-man.pdf', 'hand-hybrid-xref.pdf', 'hand-incremental-update.pdf', 'hand-signature-field.pdf',
      'libreoffice-footnotes.pdf', 'mutool-clean.pdf', 'mutool-create.pdf', 'mutool-signed.pdf', 'pdflib-acroform.pdf',
      'pdflib-xref-stream.pdf', 'pdflib-xref-table.pdf', 'qpdf-linearized.pdf', 'qpdf-object-streams.pdf',
      'qpdf-pdf20.pdf', 'generated-500-pages.pdf', 'generated-20mb-image.pdf',
    ]);
    expect(corpus.find((c) => c.name === 'generated-20mb-image.pdf')!.bytes.length).toBeGreaterThan(20 * 1024 * 1024);
  });

  it.each(cases)('%s signed with %s', async (_name, algorithm, pdf) => {
    const pki = pkis[algorithm]!;
    const { output, prepared } = await signWithEngine(pdf.bytes, { ...pki, algorithm });
    // CONTRACT: an incremental update, so the input is an exact prefix of the output.
    expect(output.length).toBeGreaterThan(pdf.bytes.length);
    expect(Buffer.compare(output.subarray(0, pdf.bytes.length), pdf.bytes)).toBe(0);
    const file = join(dir, `${algorithm}-${pdf.name}`);
    writeFileSync(file, output);

    const report = await inspectSignedPdf(file, output);
    const before = findSignatureDictionaries(pdf.bytes).length;
    const ours = report.pdfsig.at(-1);
    expect(report.pdfsig, report.raw.pdfsig).toHaveLength(before + 1);
    expect(report.pdfsig.map((s) => s.validation), report.raw.pdfsig).toEqual(report.pdfsig.map(() => 'Signature is Valid.'));
    expect(report.pdfsig.map((s) => s.coversWholeDocument)).toEqual([...report.pdfsig.slice(1).map(() => false), true]);
    expect(ours).toMatchObject({
      signerCommonName: algorithm === 'rsa' ? 'Corpus Signer RSA' : 'Corpus Signer P-256',
      subFilter: 'ETSI.CAdES.detached',
      hashAlgorithm: 'SHA-256',
      byteRange: [...prepared.byteRange],
    });
    expect(ours?.byteRange?.[2]! + ours?.byteRange?.[3]!).toBe(output.length);

    expect(report.qpdf.ok, report.qpdf.raw).toBe(true);
    // mutool: earlier signatures stay intact but see a later update; ours sees none.
    expect(report.mutool.map((s) => s.digest), report.raw.mutool).toEqual([
      ...report.mutool.slice(1).map(() => 'edited-after-signing'),
      'unchanged',
    ]);
    expect(report.mutool).toHaveLength(before + 1);

    const sigs = findSignatureDictionaries(output);
    expect(byteRangeOf(sigs.at(-1)!)).toEqual([...prepared.byteRange]);
    const { cms, signedBytes } = extractCms(output, sigs.length - 1);
    const openssl = await opensslCmsVerify(cms, signedBytes, pki.caCertPath);
    expect(openssl.ok, openssl.raw).toBe(true);

    expect(report.lint).toEqual({ ok: !FOREIGN_PROBLEMS[pdf.name], problems: FOREIGN_PROBLEMS[pdf.name] ?? [], signatures: before + 1 });
  });
});

describe('the verifier wrappers see failures (so a pass above means something)', () => {
  const signed = readFileSync(join(CORPUS_DIR, 'mutool-signed.pdf'));

  it('reads the untouched mutool signature as valid', async () => {
    const file = join(dir, 'untouched.pdf');
    writeFileSync(file, signed);
    expect((await runPdfsig(file)).signatures).toEqual([
      {
        number: 1, name: 'OtherTool', signed: true, signerCommonName: 'Corpus Other Tool',
        validation: 'Signature is Valid.', signatureValid: true, certificateStatus: 'not checked',
        coversWholeDocument: true, subFilter: 'adbe.pkcs7.detached', hashAlgorithm: 'SHA1',
        byteRange: [...extractCms(signed, 0).byteRange],
      },
    ]);
    expect((await runPdfsig(file, { checkCertificate: true })).signatures[0]?.certificateStatus).toBe('Certificate issuer is unknown.');
  });

  it('reports a changed byte and bytes added after the signature', async () => {
    const tampered = Buffer.from(signed);
    tampered[tampered.indexOf('Signed by another tool')] = 0x58;
    const t = join(dir, 'tampered.pdf');
    writeFileSync(t, tampered);
    expect((await runPdfsig(t)).signatures.map((s) => [s.validation, s.signatureValid])).toEqual([['Digest Mismatch.', false]]);
    expect((await mutoolVerify(t)).signatures.map((s) => [s.objectNumber, s.digest, s.digestValid])).toEqual([[6, 'invalid', false]]);
    const a = join(dir, 'appended.pdf');
    writeFileSync(a, Buffer.concat([signed, Buffer.from('%appended\n')]));
    expect((await runPdfsig(a)).signatures.map((s) => [s.signatureValid, s.coversWholeDocument])).toEqual([[true, false]]);
    expect((await mutoolVerify(a)).signatures.map((s) => s.digest)).toEqual(['edited-after-signing']);
  });

  it('qpdfCheck fails a file whose startxref is wrong, and a missing tool throws', async () => {
    const broken = Buffer.from(signed.toString('latin1').replace(/startxref\s+(\d+)\s+%%EOF\s*$/, 'startxref\n17\n%%EOF\n'), 'latin1');
    const b = join(dir, 'broken.pdf');
    writeFileSync(b, broken);
    expect((await qpdfCheck(b)).ok).toBe(false);
    await expect(runTool('localsign-no-such-verifier', [])).rejects.toThrow('localsign-no-such-verifier is not installed');
  });
});
