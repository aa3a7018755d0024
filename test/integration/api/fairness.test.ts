import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, smallPdf } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { nestedFormsPdf } from '../../helpers/hostile-pdfs';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * One application cannot starve everyone's PDF signing: the PDF workers' time before a 202 is
 * shared between applications (workers/pool.ts: owners take turns, and one with nothing running
 * gets a worker of its own while the others are busy). Application A sends six documents that each
 * hold a PDF worker for seconds; application B's small PDF, sent after them, is DONE before any
 * of A's is even accepted. Before, B's check waited behind A's (15.6 s with 2 in flight, 49 s
 * with 6, in the probe of the issue).
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let a: ReturnType<typeof authed>;
let b: ReturnType<typeof authed>;
let credential: string;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-fair-');
  const first = initEmbeddedWithWrapper(tmp.home);
  const second = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', '--name', 'B'], { home: tmp.home }));
  svc = await startServiceProcess({ home: tmp.home });
  a = authed(svc.url, first);
  b = authed(svc.url, second);
  credential = (await credentialKeys(a)).pades[0]!;
});
afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

describe('PDF work is shared between applications', () => {
  it("another application's small PDF is DONE before any of six slow documents from one application is answered", async () => {
    const slow = Buffer.from(nestedFormsPdf());
    const accepted: number[] = [];
    const flood = Array.from({ length: 6 }, () =>
      a(`/v1/pades/sign?credential_key=${credential}`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: slow }).then(async (r) => {
        accepted.push(Date.now());
        // Accepted, or over the per-document time limit on a machine busy with other work: either
        // way it held a PDF worker for seconds.
        expect([202, 422], await r.clone().text()).toContain(r.status);
      }),
    );
    // A's documents are in the workers before B asks.
    await new Promise((r) => setTimeout(r, 300));
    const posted = await b(`/v1/pades/sign?credential_key=${credential}`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: await smallPdf() });
    expect(posted.status).toBe(202);
    const { request_id } = (await posted.json()) as { request_id: string };
    const done = (await (await b(`/v1/results/${request_id}?wait=30`)).json()) as { status: string };
    const doneAt = Date.now();
    expect(done.status).toBe('DONE');
    expect(accepted, 'none of the slow documents was answered before the small one was DONE').toEqual([]);
    await Promise.all(flood);
    expect(accepted.every((t) => t > doneAt)).toBe(true);
  }, 120_000);
});
