import { ReadStream } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, postJson, smallPdf, type Call } from '../../helpers/api-fixtures';
import { startServiceInProcess, type InProcessService } from '../../helpers/in-process-service';
import { authed, initEmbeddedWithWrapper } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * The long poll that DONE wakes is answered with the signed document the job just wrote, not with
 * the file read back (store/document-store.ts `fresh`); a later read takes the file. Whether the
 * bytes are still there when the long poll reaches them depends on the order in which the job
 * runner ends a request (DONE, the waiters woken, then releaseWork), which only the whole service
 * shows: here in this process, with the document store's openResult watched.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: InProcessService;
let call: Call;
const opened: ('memory' | 'file')[] = [];

beforeAll(async () => {
  tmp = makeTmpHome();
  const creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceInProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  const documents = svc.ctx.documents;
  const openResult = documents.openResult.bind(documents);
  documents.openResult = async (id) => {
    const file = await openResult(id);
    if (file) opened.push(file.stream instanceof ReadStream ? 'file' : 'memory');
    return file;
  };
});

afterAll(async () => {
  await svc.stop();
  tmp.cleanup();
});

describe('a small PDF’s result', () => {
  it('goes to the long poll from memory, and to a later read from its file, the same bytes', async () => {
    const pades = (await credentialKeys(call)).pades[0]!;
    const post = await postJson(call, '/v1/pades/sign', { pdf_base64: (await smallPdf()).toString('base64'), credential_key: pades });
    expect(post.status).toBe(202);
    const { request_id } = (await post.json()) as { request_id: string };
    const polled = (await (await call(`/v1/results/${request_id}?wait=30`)).json()) as { status: string; pdf_base64: string };
    expect(polled.status).toBe('DONE');
    const later = (await (await call(`/v1/results/${request_id}`)).json()) as { pdf_base64: string };
    expect(opened).toEqual(['memory', 'file']);
    expect(later.pdf_base64).toBe(polled.pdf_base64);
    expect(Buffer.from(polled.pdf_base64, 'base64').subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});
