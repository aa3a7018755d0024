import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, HASH_A, postJson, smallPdf } from '../../helpers/api-fixtures';
import { BUNDLE, parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * No caller can exhaust the service for the others: connections (a process holding as many as the
 * service had file descriptors stopped /health for everyone, with no key) and request bodies held
 * in memory (concurrent uploads got the service OOM-killed). The service runs with 256 file
 * descriptors (prlimit) and an 8 MiB body budget here, so the limits are reached in seconds.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let a: ReturnType<typeof authed>;
let b: ReturnType<typeof authed>;
let aCreds: { key: string; secret: string };
let evm: string;
const BUDGET = 8 * 1024 * 1024;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-exhaustion-');
  aCreds = initEmbeddedWithWrapper(tmp.home);
  const second = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', '--name', 'B'], { home: tmp.home }));
  svc = await startServiceProcess({ home: tmp.home, command: ['prlimit', '--nofile=256:256', process.execPath, BUNDLE], args: ['--max-body-memory', String(BUDGET), '--body-timeout', '20'] });
  a = authed(svc.url, aCreds);
  b = authed(svc.url, second);
  evm = (await credentialKeys(b)).evm[0]!;
});
afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

/** A request whose body is sent slowly: `declared` bytes announced, `first` sent now, the rest when told. */
function slowUpload(path: string, headers: Record<string, string>, first: Buffer, rest: Buffer) {
  let finish = () => {};
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: svc.port, method: 'POST', path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.write(first);
    finish = () => req.end(rest);
  });
  return { answer, finish: () => finish() };
}

describe('connections', () => {
  it('400 idle connections with no key: /health and another application are still answered', async () => {
    const flood: Socket[] = [];
    for (let i = 0; i < 400; i++) {
      const s = connect(svc.port, '127.0.0.1');
      s.on('error', () => undefined);
      flood.push(s);
    }
    await new Promise((r) => setTimeout(r, 300));
    try {
      for (let i = 0; i < 10; i++) expect((await fetch(`${svc.url}/health`)).status).toBe(200);
      const posted = await postJson(b, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: evm });
      expect(posted.status).toBe(202);
      expect((await waitForResult(b, ((await posted.json()) as { request_id: string }).request_id)).status).toBe('DONE');
    } finally {
      for (const s of flood) s.destroy();
    }
  });
});

describe('request bodies held in memory', () => {
  const jsonBody = (bytes: number) => {
    const text = JSON.stringify({ pdf_base64: Buffer.alloc(Math.floor((bytes - 20) * 0.75), 'x').toString('base64') });
    return Buffer.from(text);
  };
  const headersFor = (body: Buffer) => ({ 'content-type': 'application/json', 'content-length': String(body.length), 'x-wrapper-key': aCreds.key, 'x-wrapper-secret': aCreds.secret });

  /** Two uploads of `body` to `route`, the second begun while the first is still arriving: it is refused 503 before the rest of it is sent. */
  async function secondRefused(route: string, body: Buffer) {
    const first = slowUpload(route, headersFor(body), body.subarray(0, 1024), body.subarray(1024));
    await new Promise((r) => setTimeout(r, 200));
    const second = slowUpload(route, headersFor(body), body.subarray(0, 1024), body.subarray(1024));
    const refused = await second.answer;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    return { first, second, refused };
  }

  it('beyond the budget a body is answered 503 with Retry-After before it is read; the others and other applications go on', async () => {
    // Each 3 MB JSON body weighs 6 MB (its base64 and the document): one fits in 8 MiB, two do not.
    const body = jsonBody(3 * 1024 * 1024);
    const { first, second, refused } = await secondRefused('/v1/pades/verify', body);
    expect(JSON.parse(refused.text)).toMatchObject({ error: expect.stringMatching(/^the service holds \d+ MiB of other request bodies and the budget is 8 MiB \(serve --max-body-memory\)/), error_id: expect.stringMatching(/^err_/) });
    // Another application is answered meanwhile, a small PDF included.
    expect((await b('/v1/credentials')).status).toBe(200);
    const pades = (await credentialKeys(b)).pades[0]!;
    expect((await postJson(b, '/v1/pades/sign', { pdf_base64: (await smallPdf()).toString('base64'), credential_key: pades })).status).toBe(202);
    first.finish();
    // Not a PDF: the verify route's 422, once the body is read. The budget is given back after it.
    expect((await first.answer).status).toBe(422);
    second.finish();
    const again = slowUpload('/v1/pades/verify', headersFor(body), body, Buffer.alloc(0));
    again.finish();
    expect((await again.answer).status).toBe(422);
  });

  it('a large JSON sign body, which is decoded to disk as it arrives, weighs the same: 503 before it is read', async () => {
    // 6 MiB: past the size from which the sign route decodes pdf_base64 into work/ as it arrives.
    const { first, second } = await secondRefused('/v1/pades/sign', jsonBody(6 * 1024 * 1024));
    first.finish();
    second.finish();
    // No credential_key: the first is refused by the field checks once it is read.
    expect((await first.answer).status).toBe(422);
  });

  it('a body alone may be larger than the budget: the budget never refuses the only one', async () => {
    const body = jsonBody(6 * 1024 * 1024);
    const alone = slowUpload('/v1/pades/verify', headersFor(body), body, Buffer.alloc(0));
    alone.finish();
    expect((await alone.answer).status).toBe(422);
  });

  it('a chunked raw PDF goes to disk as it arrives, never to memory', async () => {
    const pades = (await credentialKeys(a)).pades[0]!;
    const pdf = await smallPdf();
    const upload = slowUpload(`/v1/pades/sign?credential_key=${pades}`, { 'content-type': 'application/pdf', 'transfer-encoding': 'chunked', 'x-wrapper-key': aCreds.key, 'x-wrapper-secret': aCreds.secret }, pdf.subarray(0, 100), pdf.subarray(100));
    await new Promise((r) => setTimeout(r, 300));
    expect(readdirSync(join(tmp.home, 'work')).filter((f) => f.startsWith('upload-'))).toHaveLength(1);
    upload.finish();
    const answer = await upload.answer;
    expect(answer.status, answer.text).toBe(202);
    expect((await waitForResult(a, (JSON.parse(answer.text) as { request_id: string }).request_id)).status).toBe('DONE');
  });
});
