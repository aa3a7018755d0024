import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync } from '../../helpers/cli';
import { startConnectProxy, type ConnectProxy } from '../../helpers/connect-proxy';
import { startPlatformDouble, waitUntil, type PlatformDouble } from '../../helpers/platform-double';
import { authed, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { accept, finalOf, pairWith, wrapperFor } from './_platform';

const TX = '0x' + 'ab'.repeat(32);
/** No proxy settings inherited from the machine running the tests. */
const NO_PROXY_ENV = { HTTPS_PROXY: '', https_proxy: '', HTTP_PROXY: '', http_proxy: '', NO_PROXY: '', no_proxy: '', NODE_EXTRA_CA_CERTS: '' };

/**
 * Issue 8 "Corporate networks": the platform over HTTPS with a test CA, reached through a real
 * CONNECT proxy on loopback (HTTPS_PROXY), with the CA given to init (--platform-ca) or to Node
 * (NODE_EXTRA_CA_CERTS).
 */
describe('a platform over HTTPS behind a proxy', () => {
  let double: PlatformDouble;
  let proxy: ConnectProxy;
  beforeAll(async () => {
    [double, proxy] = await Promise.all([startPlatformDouble({ https: true, settings: { push_enabled: false } }), startConnectProxy()]);
  });
  afterAll(async () => {
    await Promise.all([double?.stop(), proxy?.stop()]);
  });

  it('without trusting the CA, init fails with one line that says how to trust it', async () => {
    const tmp = makeTmpHome();
    try {
      const code = await double.control.createPairingCode();
      const r = await runCliAsync(['init', '--platform', double.url, '--code', code], { home: tmp.home, env: NO_PROXY_ENV });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('init --platform-ca FILE or NODE_EXTRA_CA_CERTS');
    } finally {
      tmp.cleanup();
    }
  });

  it('init --platform-ca pairs through HTTPS_PROXY; the service signs through it too', async () => {
    const tmp = makeTmpHome();
    let svc: ServiceProcess | undefined;
    try {
      const env = { ...NO_PROXY_ENV, HTTPS_PROXY: proxy.url };
      await proxy.clearRequests();
      await pairWith(double, tmp.home, ['--platform-ca', double.caPemPath!], env);
      const target = new URL(double.url).host;
      expect((await proxy.requests()).filter((r) => r.type === 'CONNECT' && r.target === target).length).toBeGreaterThanOrEqual(1);
      // The CA was stored with the pairing: the service needs no flag for it.
      expect(JSON.parse(readFileSync(join(tmp.home, 'pairing.json'), 'utf8')).pairing.platform_ca_pem).toContain('BEGIN CERTIFICATE');
      await proxy.clearRequests();
      svc = await startServiceProcess({ home: tmp.home, env });
      const call = authed(svc.url, wrapperFor(tmp.home));
      const id = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
      expect(await finalOf(call, id)).toMatchObject({ status: 'DONE', address: double.walletAddress });
      expect((await proxy.requests()).some((r) => r.type === 'CONNECT' && r.target === target)).toBe(true);
    } finally {
      await svc?.stop();
      tmp.cleanup();
    }
  });

  it('NODE_EXTRA_CA_CERTS is honoured; NO_PROXY bypasses the proxy', async () => {
    const tmp = makeTmpHome();
    try {
      await proxy.clearRequests();
      await pairWith(double, tmp.home, [], { ...NO_PROXY_ENV, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1', NODE_EXTRA_CA_CERTS: double.caPemPath! });
      expect(await proxy.requests()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('report: an incident leaves the machine only after confirmation', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let svc: ServiceProcess;
  let failed: string;

  beforeAll(async () => {
    double = await startPlatformDouble({ settings: { push_enabled: false, approval: { mode: 'manual' } } });
    await pairWith(double, tmp.home);
    svc = await startServiceProcess({ home: tmp.home });
    const call = authed(svc.url, wrapperFor(tmp.home));
    failed = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    await waitUntil(async () => (await double.control.signRequests()).some((s) => s.request_id === failed), 10_000, 'the sign call');
    await double.control.reject(failed, 'declined on the phone');
    expect(await finalOf(call, failed)).toMatchObject({ status: 'ERROR' });
  });
  afterAll(async () => {
    await svc?.stop();
    await double?.stop();
    tmp.cleanup();
  });

  it('without --yes and without a terminal: one line, exit 1, nothing sent', async () => {
    const r = await runCliAsync(['report', failed], { home: tmp.home });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('confirmation needed but stdin is not a terminal; re-run with --yes to proceed');
    expect(await double.control.incidents()).toEqual([]);
  });

  it('with --yes: shows what leaves, sends the records as in errors.jsonl, prints the incident id', async () => {
    const r = await runCliAsync(['report', failed, '--yes', '--json'], { home: tmp.home });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { incident_id: string; errors: number };
    const [incident] = await double.control.incidents();
    expect(out).toMatchObject({ ok: true, request_id: failed, incident_id: incident!.incident_id, errors: 1 });
    expect(r.stderr).toContain(`This will be sent to the platform at ${double.url}:`);
    const body = incident!.body as { request_id: string; errors: { request_id: string; traceback: string; short: string }[] };
    expect(body.request_id).toBe(failed);
    expect(body.errors.map((e) => e.short)).toEqual(['the platform did not sign: declined on the phone']);
    expect(body.errors[0]!.traceback).toContain('PlatformError');
    const jsonl = readFileSync(join(tmp.home, 'errors.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { request_id: string });
    expect(body.errors).toEqual(jsonl.filter((e) => e.request_id === failed));
  });
});
