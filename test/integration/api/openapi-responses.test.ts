import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app';
import { buildConfig } from '../../../src/config/config';
import { readEnv } from '../../../src/config/env';
import { AppContext } from '../../../src/context';
import { rawRequest, smallPdf } from '../../helpers/api-fixtures';
import { runCli, parseJson } from '../../helpers/cli';
import { responseChecker } from '../../helpers/openapi-check';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 11: /openapi.json is a document an OpenAPI 3.1 validator accepts, it is the file the
 * build writes, and real answers of a running service (success and error, every status the API
 * has) are what it says, checked by ajv with every object closed.
 */
const ROOT = resolve(__dirname, '../../..');
const TX_HASH = '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';

describe('the OpenAPI document against real answers', () => {
  const homes = [makeTmpHome(), makeTmpHome(), makeTmpHome()];
  let paired: ServiceProcess;
  let unpaired: ServiceProcess;
  let failing: ServiceProcess;
  let hangingTsa: Server;
  let creds: { key: string; secret: string };
  let unpairedCreds: { key: string; secret: string };
  let failingCreds: { key: string; secret: string };
  let doc: Record<string, unknown>;
  let checker: ReturnType<typeof responseChecker>;
  let pades = '';
  let evm = '';

  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(homes[0]!.home);
    unpairedCreds = parseJson(runCli(['wrapper:create', '--json'], { home: homes[1]!.home }));
    failingCreds = initEmbeddedWithWrapper(homes[2]!.home);
    // A timestamp authority that takes the connection and hangs up 1.5 s later: PAdES requests
    // stay PENDING for a moment, then end in ERROR.
    hangingTsa = createServer((socket) => setTimeout(() => socket.destroy(), 1500));
    await new Promise<void>((r) => hangingTsa.listen(0, '127.0.0.1', r));
    const tsaPort = (hangingTsa.address() as { port: number }).port;
    [paired, unpaired, failing] = await Promise.all([
      startServiceProcess({ home: homes[0]!.home, args: ['--max-body', '200000'] }),
      startServiceProcess({ home: homes[1]!.home }),
      startServiceProcess({ home: homes[2]!.home, args: ['--tsa-url', `http://127.0.0.1:${tsaPort}/`] }),
    ]);
    doc = (await (await fetch(`${paired.url}/openapi.json`)).json()) as Record<string, unknown>;
    checker = responseChecker(doc);
    const list = (await (await authed(paired.url, creds)('/v1/credentials')).json()) as { credentials: { type: string; credential_key: string }[] };
    pades = list.credentials.find((c) => c.type === 'pades')!.credential_key;
    evm = list.credentials.find((c) => c.type === 'evm')!.credential_key;
  });
  afterAll(async () => {
    await Promise.all([paired, unpaired, failing].map((s) => s?.stop()));
    hangingTsa?.close();
    for (const h of homes) h.cleanup();
  });

  /** Calls the service and checks the answer against the document; returns the body. */
  async function call(service: ServiceProcess, c: { key: string; secret: string } | null, method: string, docPath: string, url: string, body?: unknown, expected?: number) {
    const res = await fetch(service.url + url, {
      method,
      headers: { 'content-type': 'application/json', ...(c ? { 'x-wrapper-key': c.key, 'x-wrapper-secret': c.secret } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (expected !== undefined) expect(res.status, JSON.stringify(json)).toBe(expected);
    checker.check(method, docPath, res.status, json);
    return json;
  }

  it('is a valid OpenAPI 3.1 document, the same as dist/openapi.json', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc).toEqual(JSON.parse(readFileSync(resolve(ROOT, 'dist/openapi.json'), 'utf8')));
    checker.check('GET', '/openapi.json', 200, doc);
  });

  it('success answers: health, lists, sync, both sign routes and their results', async () => {
    await call(paired, null, 'GET', '/health', '/health', undefined, 200);
    await call(unpaired, null, 'GET', '/health', '/health', undefined, 200);
    await call(paired, creds, 'GET', '/v1/credentials', '/v1/credentials', undefined, 200);
    await call(unpaired, unpairedCreds, 'GET', '/v1/credentials', '/v1/credentials', undefined, 200);
    await call(paired, creds, 'GET', '/v1/designs', '/v1/designs', undefined, 200);
    await call(paired, creds, 'POST', '/v1/sync', '/v1/sync', undefined, 200);

    const pdf = (await smallPdf()).toString('base64');
    const signed = await call(paired, creds, 'POST', '/v1/pades/sign', '/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, reason: 'OpenAPI' }, 202);
    const done = await call(paired, creds, 'GET', '/v1/results/{request_id}', `/v1/results/${String(signed.request_id)}?wait=20`, undefined, 200);
    expect(done.status).toBe('DONE');
    expect(typeof done.pdf_base64).toBe('string');

    for (const chainId of [1, null]) {
      const hash = await call(paired, creds, 'POST', '/v1/blockchain/sign', '/v1/blockchain/sign', { tx_hash: TX_HASH, credential_key: evm, chain_id: chainId }, 202);
      const r = await call(paired, creds, 'GET', '/v1/results/{request_id}', `/v1/results/${String(hash.request_id)}?wait=20`, undefined, 200);
      expect(r).toMatchObject({ status: 'DONE', chain_id: chainId });
    }
    const results = await call(paired, creds, 'GET', '/v1/results', '/v1/results?limit=10', undefined, 200);
    expect((results.results as unknown[]).length).toBe(3);
  });

  it('a request PENDING, then ERROR', async () => {
    const list = (await (await authed(failing.url, failingCreds)('/v1/credentials')).json()) as { credentials: { type: string; credential_key: string }[] };
    const key = list.credentials.find((c) => c.type === 'pades')!.credential_key;
    const signed = await call(failing, failingCreds, 'POST', '/v1/pades/sign', '/v1/pades/sign', { pdf_base64: (await smallPdf()).toString('base64'), credential_key: key }, 202);
    const pending = await call(failing, failingCreds, 'GET', '/v1/results/{request_id}', `/v1/results/${String(signed.request_id)}`, undefined, 200);
    expect(pending.status).toBe('PENDING');
    const failed = await call(failing, failingCreds, 'GET', '/v1/results/{request_id}', `/v1/results/${String(signed.request_id)}?wait=25`, undefined, 200);
    expect(failed.status).toBe('ERROR');
    expect(String(failed.error)).toMatch(/^timestamp authority 127\.0\.0\.1:\d+ /);
    const errors = await call(failing, failingCreds, 'GET', '/v1/errors', `/v1/errors?request_id=${String(signed.request_id)}`, undefined, 200);
    expect((errors.errors as { error_id: string }[])[0]!.error_id).toBe(failed.error_id);
  });

  it('error answers: 401, 403, 404, 409, 413, 422, each with the Error schema', async () => {
    await call(paired, null, 'GET', '/v1/results', '/v1/results', undefined, 401);
    await call(paired, { key: creds.key, secret: 'wsec_wrong' }, 'POST', '/v1/pades/sign', '/v1/pades/sign', {}, 401);
    const foreign = await rawRequest(paired.url, { path: '/health', headers: { host: 'evil.example' } });
    expect(foreign.status).toBe(403);
    checker.check('GET', '/health', 403, foreign.json());
    const scoped = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', '--credential', pades], { home: homes[0]!.home }));
    await call(paired, scoped, 'POST', '/v1/blockchain/sign', '/v1/blockchain/sign', { tx_hash: TX_HASH, credential_key: evm }, 403);
    await call(paired, creds, 'GET', '/v1/results/{request_id}', '/v1/results/req_unknown', undefined, 404);
    await call(unpaired, unpairedCreds, 'POST', '/v1/pades/sign', '/v1/pades/sign', { pdf_base64: 'x', credential_key: 'x' }, 409);
    await call(unpaired, unpairedCreds, 'POST', '/v1/sync', '/v1/sync', undefined, 409);
    await call(paired, creds, 'POST', '/v1/pades/sign', '/v1/pades/sign', { pdf_base64: 'A'.repeat(300_000), credential_key: pades }, 413);
    await call(paired, creds, 'POST', '/v1/blockchain/sign', '/v1/blockchain/sign', { tx_hash: '0x12', credential_key: evm }, 422);
    await call(paired, creds, 'POST', '/v1/pades/sign', '/v1/pades/sign', { pdf_base64: 'aGVsbG8=', credential_key: pades }, 422);
    await call(paired, creds, 'GET', '/v1/results', '/v1/results?limit=0', undefined, 422);
    await call(paired, creds, 'GET', '/v1/errors', '/v1/errors?limit=x', undefined, 422);
    await call(paired, creds, 'GET', '/v1/results/{request_id}', '/v1/results/req_x?wait=-1', undefined, 422);
    await call(paired, null, 'POST', '/receive', '/receive', { request_id: 'req_x', status: 'DONE' });
    const errors = await call(paired, creds, 'GET', '/v1/errors', '/v1/errors?limit=50', undefined, 200);
    // This key's own failed calls: 404, 413 and five 422s (the 401s have no application).
    expect((errors.errors as unknown[]).length).toBe(7);
  });

  it('502 from a platform that does not answer, in process', async () => {
    const tmp = makeTmpHome();
    const config = buildConfig(readEnv({}), {}, { home: tmp.home, workers: 0 });
    const ctx = new AppContext(config, { config, withRequests: true, stderr: { write: () => true } as unknown as NodeJS.WritableStream });
    try {
      ctx.pairing.replace({ pairing: { platform: 'remote', tenant_id: 7, paired_at: new Date().toISOString(), platform_url: 'http://127.0.0.1:9', agent_id: 'agt_test', agent_secret: 'secret', callback_url: null, platform_ca_pem: null } });
      const { record, secret } = ctx.wrappers.create({ name: 't', credentials: null, now: new Date() });
      const res = await createApp(ctx).request('/v1/sync', { method: 'POST', headers: { host: '127.0.0.1', 'x-wrapper-key': record.key, 'x-wrapper-secret': secret } });
      expect(res.status).toBe(502);
      checker.check('POST', '/v1/sync', 502, await res.json());
    } finally {
      await ctx.close();
      tmp.cleanup();
    }
  });
});
