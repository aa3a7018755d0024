import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparePades } from '../../../src/pades/sign/prepare';
import { finishPades } from '../../../src/pades/sign/finish';
import type { PreparedPades } from '../../../src/pades/sign/types';
import { verifyPades } from '../../../src/pades/sign/verify';
import { keptBufferBytes, runDocumentTask, type PostedDocumentTask } from '../../../src/workers/document-tasks';
import { FILE_MIN_BYTES, type FileBytes } from '../../../src/workers/large-bytes';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

/** A PDF of about `bytes`, most of it one uncompressed form XObject of `fill`. */
async function sizedPdf(bytes: number, fill: number): Promise<Uint8Array> {
  const d = await PDFDocument.create();
  const page = d.addPage([595, 842]);
  d.context.register(d.context.stream(new Uint8Array(bytes).fill(fill), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1] }));
  page.drawText('sized', { x: 50, y: 780, size: 20, font: await d.embedFont(StandardFonts.Helvetica) });
  return d.save({ useObjectStreams: false });
}

/**
 * A PDF worker's tasks on kept buffers (reused-buffers.ts) give the bytes new buffers give: a
 * larger document first leaves its bytes in the buffers, then a smaller one is read, prepared and
 * finished in them.
 */
describe('document tasks in a worker reuse its buffers and write every byte (issue 18)', () => {
  let dir: string;
  let pki: TestPki;
  const signingTime = new Date('2026-11-28T10:00:00Z');
  beforeAll(async () => {
    dir = tempDir('localsign-reuse-');
    pki = await createTestPki({ algorithm: 'p256' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const asFile = (name: string, bytes: Uint8Array): FileBytes => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return { $file: path, length: bytes.length };
  };
  const read = (ref: unknown) => new Uint8Array(readFileSync((ref as FileBytes).$file));

  it('prepare (input and update written in turn) and finish of a smaller document after a larger one: the same bytes as inline', async () => {
    const larger = await sizedPdf(FILE_MIN_BYTES + 3 * 1024 * 1024, 0x5a);
    const smaller = await sizedPdf(FILE_MIN_BYTES + 1024, 0x41);
    const input = (pdf: Uint8Array) => ({ pdf, certificateChain: pki.chain, signingTime, signerName: 'A. Signer', stamp: null });
    /** prepare, then finish (with its read-back check), as the service posts them to a worker. */
    const inWorker = async (pdf: Uint8Array, name: string) => {
      const prepared = (await runDocumentTask({ op: 'prepare', input: { ...input(pdf), pdf: asFile(`${name}.pdf`, pdf) }, scratch: dir } as unknown as PostedDocumentTask)) as unknown as PreparedPades;
      const preparedBytes = read(prepared.pdf);
      const signatureValue = signDigest(pki.signerKeyPem, 'p256', prepared.digest);
      const signed = await runDocumentTask({ op: 'finish', prepared: { ...prepared, pdf: asFile(`${name}-prepared.pdf`, preparedBytes) }, signatureValue, timestampToken: null, scratch: dir } as unknown as PostedDocumentTask);
      return { prepared, preparedBytes, signatureValue, signed: read(signed) };
    };
    await inWorker(larger, 'larger');
    // Kept: the reading, grown to the prepared file's size at finish and rounded up to a MiB (a
    // large document's prepare writes the input and its update to the file, and makes no copy of
    // it); the smaller document's tasks fit in it.
    const held = keptBufferBytes();
    expect(held).toBeGreaterThanOrEqual(larger.length);
    expect(held).toBeLessThan(2 * larger.length);
    const reused = await inWorker(smaller, 'smaller');
    expect(keptBufferBytes()).toBe(held);
    // Inline, on new buffers: byte for byte the same prepared document and the same signed one.
    const fresh = await preparePades(input(smaller));
    expect(reused.prepared.digest).toEqual(fresh.digest);
    expect(Buffer.from(reused.preparedBytes).equals(Buffer.from(fresh.pdf))).toBe(true);
    const expected = finishPades(fresh, reused.signatureValue);
    expect(Buffer.from(reused.signed).equals(Buffer.from(expected))).toBe(true);
    verifyPades(reused.signed);
  });
});
