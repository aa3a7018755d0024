import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_MESSAGE, expectError } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, serveUntilExit, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * The service proves itself, and the secret need not cross the socket. The values are computed
 * here from the documented formulas (docs/integrators.md, the OpenAPI security schemes) with
 * node:crypto, not with the service's code.
 */
const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const keyOf = (secret: string, label: string) => hmac(createHash('sha256').update(secret, 'utf8').digest(), label);
const proofOf = (secret: string, key: string, challenge: string) => hmac(keyOf(secret, 'localsign-service-proof-key-v1'), `localsign-service-proof-v1\n${key}\n${challenge}`).toString('hex');
function signed(secret: string, key: string, method: string, target: string, o: { time?: number; nonce?: string } = {}): { header: string; nonce: string } {
  const time = o.time ?? Math.floor(Date.now() / 1000);
  const nonce = o.nonce ?? randomBytes(16).toString('hex');
  const s = hmac(keyOf(secret, 'localsign-request-key-v1'), `localsign-request-v1\n${method}\n${target}\n${time}\n${nonce}\n${key}`).toString('hex');
  return { header: `t=${time},n=${nonce},s=${s}`, nonce };
}

let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let creds: { key: string; secret: string };
const where = () => ({ home: tmp.home, reader: authed(svc.url, creds) });

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-proof-');
  creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home });
});
afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

describe('GET /health proves the service to a caller that names its key and a challenge', () => {
  it('X-Localsign-Proof is the HMAC only a holder of the secret hash can make', async () => {
    const challenge = randomBytes(32).toString('hex');
    const r = await fetch(`${svc.url}/health`, { headers: { 'x-wrapper-key': creds.key, 'x-localsign-challenge': challenge } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-localsign-proof')).toBe(proofOf(creds.secret, creds.key, challenge));
    expect((await r.json()) as object).toMatchObject({ ok: true, service: 'local-signing-service' });
  });

  it('an unknown key or a revoked one gets an answer of the same shape that proves nothing; no challenge, no proof', async () => {
    const challenge = randomBytes(16).toString('hex');
    const unknown = await fetch(`${svc.url}/health`, { headers: { 'x-wrapper-key': 'wrp_unknownKey000000', 'x-localsign-challenge': challenge } });
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get('x-localsign-proof')).toMatch(/^[0-9a-f]{64}$/);
    const other = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: tmp.home }));
    expect(runCli(['wrapper:revoke', other.key], { home: tmp.home }).status).toBe(0);
    const revoked = await fetch(`${svc.url}/health`, { headers: { 'x-wrapper-key': other.key, 'x-localsign-challenge': challenge } });
    expect(revoked.headers.get('x-localsign-proof')).not.toBe(proofOf(other.secret, other.key, challenge));
    for (const headers of [{}, { 'x-wrapper-key': creds.key }, { 'x-wrapper-key': creds.key, 'x-localsign-challenge': 'short' }] as Record<string, string>[]) {
      const r = await fetch(`${svc.url}/health`, { headers });
      expect([r.status, r.headers.get('x-localsign-proof')]).toEqual([200, null]);
    }
  });
});

describe('X-Wrapper-Signature: a request signed with the secret, which stays with the application', () => {
  it('is served, and the answer proves the service for the signature\'s nonce', async () => {
    const { header, nonce } = signed(creds.secret, creds.key, 'GET', '/v1/results?limit=2');
    const r = await fetch(`${svc.url}/v1/results?limit=2`, { headers: { 'x-wrapper-key': creds.key, 'x-wrapper-signature': header } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-localsign-proof')).toBe(proofOf(creds.secret, creds.key, nonce));
  });

  it('a replay, another path or method, a stale time, a wrong key or a malformed header: the one 401', async () => {
    const ok = signed(creds.secret, creds.key, 'GET', '/v1/credentials');
    const headers = (h: string) => ({ 'x-wrapper-key': creds.key, 'x-wrapper-signature': h });
    expect((await fetch(`${svc.url}/v1/credentials`, { headers: headers(ok.header) })).status).toBe(200);
    await expectError(await fetch(`${svc.url}/v1/credentials`, { headers: headers(ok.header) }), 401, AUTH_MESSAGE, where());
    await expectError(await fetch(`${svc.url}/v1/designs`, { headers: headers(signed(creds.secret, creds.key, 'GET', '/v1/credentials').header) }), 401, AUTH_MESSAGE, where());
    await expectError(await fetch(`${svc.url}/v1/credentials`, { method: 'POST', headers: headers(signed(creds.secret, creds.key, 'GET', '/v1/credentials').header) }), 405, /not allowed/, where());
    const stale = signed(creds.secret, creds.key, 'GET', '/v1/credentials', { time: Math.floor(Date.now() / 1000) - 120 });
    await expectError(await fetch(`${svc.url}/v1/credentials`, { headers: headers(stale.header) }), 401, AUTH_MESSAGE, where());
    const wrong = signed(creds.secret + 'x', creds.key, 'GET', '/v1/credentials');
    await expectError(await fetch(`${svc.url}/v1/credentials`, { headers: headers(wrong.header) }), 401, AUTH_MESSAGE, where());
    for (const bad of ['', 't=1,n=00,s=00', ok.header.replace('s=', 's=0')]) {
      await expectError(await fetch(`${svc.url}/v1/credentials`, { headers: headers(bad) }), 401, AUTH_MESSAGE, where());
    }
    // A failed signature never reveals a proof.
    const refused = await fetch(`${svc.url}/v1/credentials`, { headers: headers(wrong.header) });
    expect(refused.headers.get('x-localsign-proof')).toBeNull();
  });
});

describe('both loopback families on the port', () => {
  it('the service answers on 127.0.0.1 and on [::1] at the same port', async () => {
    const v6 = await fetch(`http://[::1]:${svc.port}/health`);
    expect(v6.status).toBe(200);
    expect(((await v6.json()) as { service: string }).service).toBe('local-signing-service');
  });

  it('with another program on [::1] at its port, the service does not start, and names it', async () => {
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '::1', resolve));
    const port = (squatter.address() as { port: number }).port;
    try {
      const home = makeTmpHome('localsign-api-proof-squat-');
      try {
        initEmbeddedWithWrapper(home.home);
        const r = await serveUntilExit({ home: home.home, port, timeoutMs: 20_000 });
        expect(r.code).not.toBe(0);
        expect(r.output).toContain(`port ${port} is already in use on [::1]:${port} by another program: applications that call localhost:${port} could reach it instead of this service`);
      } finally {
        home.cleanup();
      }
    } finally {
      squatter.close();
    }
  });
});
