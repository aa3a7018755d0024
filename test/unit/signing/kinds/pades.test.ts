import { createPrivateKey } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPades } from '../../../../src/pades/sign';
import { runPadesJob } from '../../../../src/signing/kinds/pades-job';
import type { PadesParams } from '../../../../src/signing/kinds';
import type { SigningEngine } from '../../../../src/signing/engine';
import type { JobDeps, JobRun } from '../../../../src/signing/job-types';
import { HttpClient } from '../../../../src/net/http-client';
import { DocumentStore } from '../../../../src/store/document-store';
import type { CachedCredential } from '../../../../src/store/catalog-types';
import type { RequestEntry } from '../../../../src/store/request-store';
import { inlineDocumentWork } from '../../../helpers/document-work';
import { createTestPki, type TestPki } from '../../../helpers/test-pki';
import { tempDir } from '../../../helpers/temp-dir';

/**
 * Issue 18: a small document is prepared with its check before the 202 (accept.ts); its job then
 * starts at the signature and never asks a PDF worker to prepare it again, unless the room left
 * for a timestamp does not match the level the job signs at.
 */
describe('runPadesJob with a document prepared before the 202', () => {
  let pki: TestPki;
  let pdf: Uint8Array;
  let dir: string;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'p256' });
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]);
    pdf = await doc.save({ useObjectStreams: false });
    dir = tempDir('localsign-pades-kind-');
    mkdirSync(join(dir, 'work'));
    mkdirSync(join(dir, 'results'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const credential = (): CachedCredential => ({ credential_key: 'cred-p', type: 'pades', name: 'p', engine: 'chip', default_design_key: null, certificate_chain: pki.chain.map((c) => Buffer.from(c).toString('base64')) });
  const entry = (id: string): RequestEntry<PadesParams> => ({
    requestId: id, kind: 'pades', status: 'PENDING', credentialKey: 'cred-p', wrapperKey: 'w', createdAt: '2026-11-28T10:00:00.000Z', completedAt: null,
    params: { engine: 'chip', designKey: null, variables: {}, reason: null, location: null, signerName: 'A. Signer', level: 'B-B' },
  });
  /** The chip: ECDSA over the digest of the signed attributes, r‖s, as CKM_ECDSA gives it. */
  const engine: SigningEngine = {
    name: 'chip', signer: 'the chip', summary: 'a test chip', remote: false, onChip: true, recovers: false,
    sign: async (request) => ({ signature: p256.sign(request.digest, Buffer.from(createPrivateKey(pki.signerKeyPem).export({ format: 'jwk' }).d!, 'base64url'), { prehash: false, format: 'compact' }) }),
  };

  async function run(id: string, reserveTimestamp: boolean) {
    const documentWork = inlineDocumentWork();
    const documents = new DocumentStore({ work: join(dir, 'work'), results: join(dir, 'results') });
    await documents.admit(id, pdf).written;
    const deps = { now: () => new Date('2026-11-28T10:00:00Z'), engines: () => engine, documentWork, documents, findCredential: () => credential(), findDesign: () => undefined, tsaUrl: null, padesLevel: 'B-B', http: new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null }) } as unknown as JobDeps;
    const early = await documentWork.checkAndPrepare({ pdf, certificateChain: pki.chain, signingTime: deps.now(), reason: null, location: null, signerName: 'A. Signer', stamp: null, certify: null, reserveTimestamp }, null);
    const prepare = vi.spyOn(documentWork, 'prepare');
    const jobRun: JobRun = {
      engine, signal: new AbortController().signal, resumed: false, signing: () => undefined, signed: () => undefined,
      accepted: { credential: credential(), design: null, placement: early.check.placement, prepared: { document: early.prepared, reserveTimestamp } },
    };
    const outcome = await runPadesJob(entry(id), deps, jobRun);
    await outcome.persist!();
    const signed = readFileSync(documents.resultPath(id));
    return { prepare, signed, early };
  }

  it('signs the prepared document without preparing it again', async () => {
    const { prepare, signed, early } = await run('req_early', false);
    expect(prepare).not.toHaveBeenCalled();
    // The prepared bytes are the signed document's, up to its /Contents.
    expect(Buffer.from(signed.subarray(0, early.prepared.contentsOffset)).equals(Buffer.from(early.prepared.pdf as Uint8Array).subarray(0, early.prepared.contentsOffset))).toBe(true);
    expect(verifyPades(signed).fieldName).toMatch(/^Signature/);
  });

  it('prepares again when the room left for a timestamp is not what the level needs', async () => {
    const { prepare, signed } = await run('req_again', true);
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(verifyPades(signed).fieldName).toMatch(/^Signature/);
  });
});
