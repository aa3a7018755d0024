import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, readErrorsJsonl, smallPdf } from '../../helpers/api-fixtures';
import { parseJson, runCli, runCliAsync } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { startSilentServer, type SilentServer } from '../lifecycle/_load';

/**
 * Issue 7 item 3 and CONTRACT GET /v1/errors: each application sees only the records of its own
 * requests and failed calls; a caller with no key attaches nothing to anyone's request; `report`
 * sends only what the request's own application caused.
 */
describe('error records belong to one application', () => {
  const tmp = makeTmpHome();
  let tsa: SilentServer;
  let svc: ServiceProcess;
  let a: ReturnType<typeof authed>;
  let b: ReturnType<typeof authed>;
  let aKey: string;
  let failedA: string;

  beforeAll(async () => {
    const wa = initEmbeddedWithWrapper(tmp.home);
    const wb = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--name', 'b', '--json'], { home: tmp.home }));
    aKey = wa.key;
    tsa = await startSilentServer();
    // A timestamp authority that never answers and a 1 s timeout: A's request ends ERROR.
    svc = await startServiceProcess({ home: tmp.home, args: ['--tsa-url', tsa.url, '--request-timeout', '1'] });
    a = authed(svc.url, wa);
    b = authed(svc.url, wb);
    const pades = (await credentialKeys(a)).pades[0]!;
    const res = await a('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: (await smallPdf()).toString('base64'), credential_key: pades }) });
    failedA = ((await res.json()) as { request_id: string }).request_id;
    expect((await waitForResult(a, failedA, 20_000)).status).toBe('ERROR');
  });
  afterAll(async () => {
    await svc?.stop();
    await tsa?.close();
    tmp.cleanup();
  });

  const listed = async (call: ReturnType<typeof authed>, query = '') => ((await (await call(`/v1/errors?limit=1000${query}`)).json()) as { errors: { error_id: string; short: string; request_id: string | null }[] }).errors;

  it('B does not see A\'s document preview, credential or request ids; A does', async () => {
    const secret = Buffer.from('CONFIDENTIAL salary list 2026').toString('base64');
    const res = await a('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: secret, credential_key: (await credentialKeys(a)).pades[0] }) });
    expect(res.status).toBe(422);
    const { error_id } = (await res.json()) as { error_id: string };
    expect((await listed(a)).map((e) => e.error_id)).toContain(error_id);
    const seenByB = JSON.stringify(await listed(b));
    expect(seenByB).not.toContain(error_id);
    expect(seenByB).not.toContain('CONFIDENTIAL');
    expect(seenByB).not.toContain(failedA);
    expect(await listed(b, `&request_id=${failedA}`)).toEqual([]);
    expect((await listed(a, `&request_id=${failedA}`)).map((e) => e.short)).toEqual(['signing did not complete within 1 s']);
  });

  it('a caller with no key, or another application, attaches nothing to A\'s request', async () => {
    const anonymous = await fetch(`${svc.url}/v1/results/${failedA}`);
    expect(anonymous.status).toBe(401);
    const anonId = ((await anonymous.json()) as { error_id: string }).error_id;
    const byB = await b(`/v1/results/${failedA}`);
    expect(byB.status).toBe(404);
    const bId = ((await byB.json()) as { error_id: string }).error_id;
    const lines = readErrorsJsonl(tmp.home);
    expect(lines.find((l) => l.error_id === anonId)).toMatchObject({ status: 401, request_id: null, wrapper_key: null });
    expect(lines.find((l) => l.error_id === bId)).toMatchObject({ status: 404, request_id: null });
    expect(lines.find((l) => l.error_id === bId)!.wrapper_key).not.toBe(aKey);
    expect((await listed(a, `&request_id=${failedA}`)).map((e) => e.error_id)).not.toContain(anonId);
    expect((await listed(a)).map((e) => e.error_id)).not.toContain(bId);
  });

  it('report sends only the records the request\'s own application caused', async () => {
    const out = join(tmp.home, 'incident.json');
    const r = await runCliAsync(['report', failedA, '--yes', '--out', out, '--json'], { home: tmp.home });
    expect(r.status, r.stderr).toBe(0);
    const bundle = JSON.parse(readFileSync(out, 'utf8')) as { request_id: string; errors: { short: string; wrapper_key: string; status: number | null }[] };
    expect(bundle.request_id).toBe(failedA);
    expect(bundle.errors.map((e) => [e.short, e.wrapper_key, e.status])).toEqual([['signing did not complete within 1 s', aKey, null]]);
  });
});
