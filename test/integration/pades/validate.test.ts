/**
 * Local validation (pades/validate/validate.ts through `localsign verify`) against pdfsig: on every PDF of
 * the corpus, as found and signed by the engine, each signature's digest verdict is pdfsig's;
 * a changed byte is caught by both. Certification (DocMDP P=1/2/3): what each permission allows
 * after it (DSS, a signature, an annotation, a content change), with pdfsig's view of the same files.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDict, PDFName, PDFRef } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfReader } from '../../../src/pades/pdf/pdf-reader';
import { newObjectsAfter } from '../../../src/pades/pdf/new-objects';
import { addDss } from '../../../src/pades/sign/dss';
import { writeIncrementalUpdate } from '../../../src/pades/pdf/incremental-writer';
import { findPage } from '../../../src/pades/pdf/signature-field';
import { validatePdf } from '../../../src/pades/validate/validate';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { listCorpus, signWithEngine } from '../../helpers/pdf-corpus';
import { addAnnotation } from '../../helpers/pdf-revisions';
import { runPdfsig } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let pki: TestPki;
let dir: string;

beforeAll(async () => {
  dir = tempDir('localsign-validate-');
  pki = await createTestPki({ algorithm: 'rsa', intermediate: true, signerCn: 'Validate Signer' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface CliReport {
  valid: boolean;
  signatures: { valid: boolean; digest_valid: boolean; covers_whole_document: boolean; chain: { trusted: boolean; failures: string[] }; signer: { subject: string } | null }[];
}

async function verifyCli(file: string, trust?: string): Promise<{ report: CliReport; status: number | null }> {
  // The test PKI publishes no revocation data: what is judged here is the rest, so its absence is let pass.
  const r = await runCliAsync(['verify', file, '--json', ...(trust ? ['--trust', trust, '--revocation', 'if-available'] : [])], { home: dir });
  return { report: parseJson<CliReport>(r), status: r.status };
}

async function agree(file: string): Promise<CliReport> {
  const [{ report }, pdfsig] = await Promise.all([verifyCli(file, pki.caCertPath), runPdfsig(file)]);
  const signed = pdfsig.signatures.filter((s) => s.signed);
  expect(report.signatures.map((s) => s.digest_valid), pdfsig.raw).toEqual(signed.map((s) => s.signatureValid));
  expect(report.signatures.map((s) => s.covers_whole_document)).toEqual(signed.map((s) => s.coversWholeDocument));
  return report;
}

describe('localsign verify agrees with pdfsig on the corpus', () => {
  it('every corpus PDF as found and signed by the engine; a changed byte fails both', async () => {
    const corpus = await listCorpus();
    for (const pdf of corpus) {
      const asFound = join(dir, `found-${pdf.name}`);
      writeFileSync(asFound, pdf.bytes);
      const before = await agree(asFound);
      const { output } = await signWithEngine(pdf.bytes, { ...pki, algorithm: 'rsa' });
      const file = join(dir, `signed-${pdf.name}`);
      writeFileSync(file, output);
      const after = await agree(file);
      expect(after.signatures).toHaveLength(before.signatures.length + 1);
      expect(after.signatures.at(-1)).toMatchObject({ valid: true, digest_valid: true, chain: { trusted: true, failures: [] }, signer: { subject: 'CN=Validate Signer,O=localsign test,C=ES' } });
      expect(after.valid).toBe(after.signatures.every((s) => s.valid));
    }
    // mutool's own signature (adbe.pkcs7.detached, SHA-1) verifies, but its signer is not our anchor.
    const mutool = await verifyCli(join(dir, 'found-mutool-signed.pdf'), pki.caCertPath);
    expect(mutool.report.signatures.map((s) => [s.digest_valid, s.chain.trusted])).toEqual([[true, false]]);
    expect(mutool.status).toBe(1);
    const human = await runCliAsync(['verify', join(dir, 'signed-cairo.pdf'), '--trust', pki.caCertPath, '--revocation', 'if-available'], { home: dir });
    // Valid without revocation data under if-available, and each check not made said in a note.
    expect([human.status, human.stdout]).toEqual([
      0,
      '1. Signature1 (signature, B-B): VALID - CN=Validate Signer,O=localsign test,C=ES\n' +
        '     - note: the revocation of CN=Validate Signer,O=localsign test,C=ES was not checked: no CRL or OCSP response about it was found\n' +
        '     - note: the revocation of CN=localsign Test Intermediate CA,O=localsign test,C=ES was not checked: no CRL or OCSP response about it was found\n' +
        'overall: VALID\n',
    ]);
    // By default revocation is required, and a B-B signature of a CA that publishes nothing has none.
    const strict = await runCliAsync(['verify', join(dir, 'signed-cairo.pdf'), '--trust', pki.caCertPath], { home: dir });
    expect([strict.status, strict.stdout]).toEqual([1, [
      '1. Signature1 (signature, B-B): INVALID - CN=Validate Signer,O=localsign test,C=ES',
      '     - chain: the revocation status of CN=Validate Signer,O=localsign test,C=ES cannot be determined (revocation: require): no CRL or OCSP response about it was found',
      '     - chain: the revocation status of CN=localsign Test Intermediate CA,O=localsign test,C=ES cannot be determined (revocation: require): no CRL or OCSP response about it was found',
      'overall: INVALID',
      '',
    ].join('\n')]);
    const badPolicy = await runCliAsync(['verify', join(dir, 'signed-cairo.pdf'), '--revocation', 'off'], { home: dir });
    expect([badPolicy.status, badPolicy.stderr.trim()]).toEqual([2, expect.stringContaining('--revocation must be require or if-available, not "off"')]);
    const untrusted = await runCliAsync(['verify', join(dir, 'signed-cairo.pdf')], { home: dir });
    expect([untrusted.status, untrusted.stdout]).toEqual([1, [
      '1. Signature1 (signature, B-B): INVALID - CN=Validate Signer,O=localsign test,C=ES',
      '     - chain: no trust anchors are configured (--trust FILE)',
      '     - chain: no issuer certificate for CN=localsign Test Intermediate CA,O=localsign test,C=ES among the embedded and trusted certificates',
      'overall: INVALID',
      '',
    ].join('\n')]);
    const missing = await runCliAsync(['verify', join(dir, 'nothing.pdf')], { home: dir });
    expect([missing.status, missing.stderr]).toEqual([1, `cannot read ${join(dir, 'nothing.pdf')}: no such file or folder (ENOENT)\n`]);

    const { output } = await signWithEngine(corpus[0]!.bytes, { ...pki, algorithm: 'rsa' });
    const tampered = output.slice();
    const at = 11; // cairo.pdf's binary comment on line 2: inside the first signed range, harmless to readers
    tampered[at] = tampered[at]! ^ 0x01;
    const file = join(dir, 'tampered.pdf');
    writeFileSync(file, tampered);
    const report = await agree(file);
    expect(report.signatures.at(-1)!.digest_valid).toBe(false);
  });
});

/** An incremental update replacing the first page's content: a change no permission allows. */
function changeContent(pdf: Uint8Array): Uint8Array {
  const reader = new PdfReader(pdf);
  const { context, created } = newObjectsAfter(reader);
  const page = findPage(reader, reader.catalog().dict, 'first');
  page.dict.set(PDFName.of('Contents'), context.register(context.flateStream('BT /F1 12 Tf 72 72 Td (changed) Tj ET')));
  return writeIncrementalUpdate(pdf, reader.xref, [{ ref: page.ref as PDFRef, object: page.dict as PDFDict }, ...created()]).bytes;
}

describe('certification (DocMDP) and the changes after it', () => {
  it.each([1, 2, 3] as const)('P=%i: the DSS is always allowed, a signature from P=2, an annotation at P=3, a content change never', async (p) => {
    const corpusPdf = (await listCorpus()).find((c) => c.name === 'pdflib-xref-table.pdf')!;
    const { output: certified } = await signWithEngine(corpusPdf.bytes, { ...pki, algorithm: 'rsa' }, { certify: p });
    const now = new Date();
    const judge = (pdf: Uint8Array) => validatePdf(pdf, { trustAnchors: [pki.chain.at(-1)!], now, revocation: 'if-available' }).signatures[0]!;
    expect(judge(certified)).toMatchObject({ valid: true, docMdp: { certifies: p, permission: p, allowed: true }, modifications: { level: 'none' } });

    const withDss = addDss(certified, { certs: pki.chain, ocsps: [], crls: [] }, []);
    expect(judge(withDss)).toMatchObject({ valid: true, docMdp: { allowed: true }, modifications: { level: 'dss_and_timestamps' } });

    if (p === 1) {
      await expect(signWithEngine(certified, { ...pki, algorithm: 'rsa' })).rejects.toThrow('certified with DocMDP permission P=1');
    } else {
      const { output: cosigned } = await signWithEngine(certified, { ...pki, algorithm: 'rsa' });
      expect(judge(cosigned)).toMatchObject({ valid: true, docMdp: { allowed: true }, modifications: { level: 'signing_and_forms' } });
      const file = join(dir, `cosigned-p${p}.pdf`);
      writeFileSync(file, cosigned);
      expect((await runPdfsig(file)).signatures.map((s) => [s.signatureValid, s.coversWholeDocument])).toEqual([[true, false], [true, true]]);
    }

    const annotated = addAnnotation(certified);
    const a = judge(annotated);
    expect(a.modifications.level).toBe('annotations');
    expect([a.valid, a.docMdp.allowed]).toEqual([p === 3, p === 3]);
    if (p !== 3) expect(a.problems).toContain(`changes after it are not allowed by DocMDP P=${p}: ${a.modifications.changes.join('; ')}`);

    const changed = judge(changeContent(certified));
    expect(changed).toMatchObject({ valid: false, digestValid: true, docMdp: { allowed: false }, modifications: { level: 'other' } });
    expect(changed.modifications.changes.join('\n')).toMatch(/page object \d+: \/Contents changed/);
    const file = join(dir, `changed-p${p}.pdf`);
    writeFileSync(file, changeContent(certified));
    // pdfsig still finds the signed bytes intact: the DocMDP verdict is ours.
    expect((await runPdfsig(file)).signatures.map((s) => [s.signatureValid, s.coversWholeDocument])).toEqual([[true, false]]);
  });
});
