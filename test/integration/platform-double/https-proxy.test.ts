/**
 * The corporate-network pieces for real: the platform double over HTTPS with a test CA (trusted
 * through `ca`, and through NODE_EXTRA_CA_CERTS in a plain Node process), and the loopback
 * forward proxy (connect-proxy.ts) tunnelling https and forwarding http, with its refuse and
 * Proxy-Authorization switches.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy, type ConnectProxy } from '../../helpers/connect-proxy';
import { requestJson } from '../../helpers/http-json';
import { startPlatformDouble, type PlatformDouble } from '../../helpers/platform-double';

let tls: PlatformDouble;
let plain: PlatformDouble;
let proxy: ConnectProxy;
let authProxy: ConnectProxy;

beforeAll(async () => {
  [tls, proxy, authProxy] = await Promise.all([
    startPlatformDouble({ https: true }),
    startConnectProxy(),
    startConnectProxy({ auth: { user: 'corp', password: 'p@ss word' } }),
  ]);
  // Same keys as the TLS double: only the HTTP side differs.
  plain = await startPlatformDouble({ pkiDir: tls.pkiDir });
});
afterAll(async () => {
  await Promise.all([plain?.stop(), proxy?.stop(), authProxy?.stop()]);
  await tls?.stop();
});

const credentialsPath = '/agent/v1/credentials';

describe('HTTPS with a test CA', () => {
  it('serves TLS for 127.0.0.1 that verifies only with the CA file', async () => {
    expect(tls.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = readFileSync(tls.caPemPath!, 'utf8');
    expect((await requestJson(tls.url + credentialsPath, { ca })).status).toBe(401);
    await expect(requestJson(tls.url + credentialsPath)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('is trusted by a Node process through NODE_EXTRA_CA_CERTS', () => {
    const script = `fetch(${JSON.stringify(tls.url + credentialsPath)}).then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`;
    const run = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, ['-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' }).stdout.trim();
    expect(run({ NODE_EXTRA_CA_CERTS: tls.caPemPath! })).toBe('401');
    expect(run({ NODE_EXTRA_CA_CERTS: '' })).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('serves the same PAdES root as a plain double sharing its pkiDir', () => {
    expect(plain.url).toMatch(/^http:\/\//);
    expect(plain.caPemPath).toBeNull();
    expect(plain.rootPem).toBe(tls.rootPem);
  });
});

describe('loopback forward proxy', () => {
  it('tunnels https with CONNECT and forwards absolute-form http, logging each target', async () => {
    await proxy.clearRequests();
    const code = await tls.control.createPairingCode();
    const machine = { hostname: 'h', os: 'linux', arch: 'x64', version: '1' };
    const paired = await tls.call('POST', '/agent/v1/pair', { proxy: proxy.url, body: { pairing_code: code, machine, callback_url: null } });
    expect(paired.status).toBe(200);
    const viaHttp = await plain.call('GET', credentialsPath, { proxy: proxy.url });
    expect(viaHttp.status).toBe(401);
    const tlsPort = new URL(tls.url).port;
    const plainPort = new URL(plain.url).port;
    expect((await proxy.requests()).map((r) => [r.type, r.target, r.url, r.status])).toEqual([
      ['CONNECT', `127.0.0.1:${tlsPort}`, null, 200],
      ['FORWARD', `127.0.0.1:${plainPort}`, `${plain.url}${credentialsPath}`, 401],
    ]);
    // The double saw the forwarded call (no proxy headers leak through).
    const last = (await plain.control.log()).at(-1)!;
    expect([last.path, last.headers['proxy-authorization']]).toEqual([credentialsPath, undefined]);
  });

  it('refuses every client with 403 when switched to refuse', async () => {
    await proxy.setRefuse(true);
    try {
      await expect(tls.call('GET', credentialsPath, { proxy: proxy.url })).rejects.toMatchObject({ statusCode: 403 });
      expect((await plain.call('GET', credentialsPath, { proxy: proxy.url })).status).toBe(403);
    } finally {
      await proxy.setRefuse(false);
    }
    expect((await plain.call('GET', credentialsPath, { proxy: proxy.url })).status).toBe(401);
  });

  it('demands Proxy-Authorization when started with auth', async () => {
    await expect(tls.call('GET', credentialsPath, { proxy: authProxy.url })).rejects.toMatchObject({ statusCode: 407 });
    expect((await plain.call('GET', credentialsPath, { proxy: authProxy.url })).status).toBe(407);
    expect(authProxy.urlWithAuth).toMatch(/^http:\/\/corp:p%40ss%20word@127\.0\.0\.1:\d+$/);
    expect((await tls.call('GET', credentialsPath, { proxy: authProxy.urlWithAuth })).status).toBe(401);
    expect((await plain.call('GET', credentialsPath, { proxy: authProxy.urlWithAuth })).status).toBe(401);
    expect((await authProxy.requests()).map((r) => r.status)).toEqual([407, 407, 200, 401]);
  });
});

describe('processes', () => {
  it('stop() ends the double and the proxy processes', async () => {
    await Promise.all([authProxy.stop(), plain.stop()]);
    for (const pid of [authProxy.pid, plain.pid]) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});
