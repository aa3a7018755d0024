import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, postJson, smallPdf, type Call } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 15, the low items against a real service: verify and sync under `--rate-limit` like the
 * sign routes; `__proto__`, `constructor` and `prototype` refused wherever a request names a field
 * or variable (CONTRACT); and a cache written before certificates were read at sync still lists
 * everyone else when one of its certificates does not read.
 */
const RESERVED = ['__proto__', 'constructor', 'prototype'];
const reservedMessage = (what: string) => `${what} is not allowed: __proto__, constructor, prototype are reserved names`;

describe('verify and sync count against the rate limit', () => {
  const tmp = makeTmpHome('localsign-limit-');
  let svc: ServiceProcess;
  afterAll(async () => {
    await svc?.stop();
    tmp.cleanup();
  });

  it('POST /v1/pades/verify and POST /v1/sync: 429 with Retry-After beyond the burst, per key; reads stay free', async () => {
    const first = initEmbeddedWithWrapper(tmp.home);
    const second = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: tmp.home }));
    // 1 request a second with a burst of 3: the 4th at once is over, whatever the machine's speed.
    svc = await startServiceProcess({ home: tmp.home, args: ['--rate-limit', '1', '--rate-burst', '3'] });
    const where = (reader: Call) => ({ home: tmp.home, reader });
    for (const [creds, route] of [
      [first, (c: Call) => postJson(c, '/v1/pades/verify', {})],
      [second, (c: Call) => c('/v1/sync', { method: 'POST' })],
    ] as const) {
      const call = authed(svc.url, creds);
      // Counted, then answered (verify: 422 for the missing document; sync: 200); a few more may
      // pass on a machine so slow that a second went by meanwhile.
      let passed = 0;
      let over = await route(call);
      while (over.status !== 429 && passed < 20) {
        expect([200, 422]).toContain(over.status);
        passed += 1;
        over = await route(call);
      }
      expect(passed).toBeGreaterThanOrEqual(3);
      expect(over.headers.get('retry-after')).toBe('1');
      await expectError(over, 429, 'this application key is over its rate limit (serve --rate-limit); retry after 1 s', where(call));
      expect((await call('/v1/credentials')).status).toBe(200);
    }
  });
});

describe('reserved names and an old cache, on one service', () => {
  const tmp = makeTmpHome('localsign-names-');
  let svc: ServiceProcess;
  let call: Call;
  let pades = '';
  let pdf: Buffer;
  const where = () => ({ home: tmp.home, reader: call });
  beforeAll(async () => {
    const creds = initEmbeddedWithWrapper(tmp.home);
    svc = await startServiceProcess({ home: tmp.home });
    call = authed(svc.url, creds);
    pades = (await credentialKeys(call)).pades[0]!;
    pdf = await smallPdf('reserved names');
  });
  afterAll(async () => {
    await svc?.stop();
    tmp.cleanup();
  });

  const raw = (query: string) => call(`/v1/pades/sign?${query}`, { method: 'POST', body: new Uint8Array(pdf), headers: { 'content-type': 'application/pdf' } });

  it('raw transport: ?NAME= and var.NAME= with a reserved name are a 422 naming it (was a 202)', async () => {
    for (const name of RESERVED) {
      await expectError(await raw(`credential_key=${pades}&${name}=x`), 422, reservedMessage(name), where());
      await expectError(await raw(`credential_key=${pades}&var.${name}=x`), 422, reservedMessage(`var.${name}`), where());
    }
    // The same request without them is accepted.
    expect((await raw(`credential_key=${pades}`)).status).toBe(202);
  });

  it('JSON bodies: a reserved field or variable name is a 422 naming it, on sign and verify', async () => {
    const pdf_base64 = pdf.toString('base64');
    for (const name of RESERVED) {
      const key = JSON.stringify(name);
      // Sent as text: JSON.parse makes "__proto__" an own member, which is what the service sees.
      const top = `{"pdf_base64":"${pdf_base64}","credential_key":"${pades}",${key}:{"x":1}}`;
      await expectError(await call('/v1/pades/sign', { method: 'POST', body: top }), 422, reservedMessage(`field ${name}`), where());
      const variable = `{"pdf_base64":"${pdf_base64}","credential_key":"${pades}","variables":{${key}:"x"}}`;
      await expectError(await call('/v1/pades/sign', { method: 'POST', body: variable }), 422, reservedMessage(`variables.${name}`), where());
      const verify = `{"pdf_base64":"${pdf_base64}",${key}:1}`;
      await expectError(await call('/v1/pades/verify', { method: 'POST', body: verify }), 422, reservedMessage(`field ${name}`), where());
      const hash = `{"tx_hash":"0x${'ab'.repeat(32)}","credential_key":"k",${key}:null}`;
      await expectError(await call('/v1/blockchain/sign', { method: 'POST', body: hash }), 422, reservedMessage(`field ${name}`), where());
    }
  });

  it('a cache written before sync read certificates: a certificate that does not read leaves only its credential out of GET /v1/credentials', async () => {
    const file = join(tmp.home, 'cache.json');
    const cache = JSON.parse(readFileSync(file, 'utf8')) as { credentials: Record<string, unknown>[] };
    const good = cache.credentials.find((c) => c.credential_key === pades)!;
    const { certificate, ...old } = good;
    expect(certificate).toBeDefined(); // this service's own sync read it
    const chain = old.certificate_chain as string[];
    cache.credentials.push(
      { ...old, credential_key: 'old-good', name: 'Old good' },
      { ...old, credential_key: 'old-bad', name: 'Old bad', certificate_chain: [Buffer.from('not DER').toString('base64'), ...chain.slice(1)] },
    );
    writeFileSync(file, JSON.stringify(cache));
    // The running service re-reads cache.json on change.
    let list: Record<string, unknown>[] = [];
    for (let i = 0; i < 100 && !list.some((c) => c.credential_key === 'old-good'); i += 1) {
      const res = await call('/v1/credentials');
      expect(res.status).toBe(200);
      list = ((await res.json()) as { credentials: Record<string, unknown>[] }).credentials;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(list.find((c) => c.credential_key === 'old-good')).toMatchObject({ certificate: certificate as object });
    expect(list.map((c) => c.credential_key)).not.toContain('old-bad');
    expect(list.map((c) => c.credential_key)).toContain(pades);
  });
});
