import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readErrorsJsonl } from '../../helpers/api-fixtures';
import { runCliAsync } from '../../helpers/cli';
import { startPlatformDouble, type PlatformDouble } from '../../helpers/platform-double';
import { authed, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { accept, pairWith, postJson, wrapperFor } from './_platform';

/**
 * Issue 8 "Pairing" and "Catalogue", against the platform double (a real server process) with the
 * built CLI and a real service: PLATFORM.md pairing, sync, a platform 500, a revoked pairing.
 */
describe('pairing with a remote platform', () => {
  let double: PlatformDouble;
  beforeAll(async () => {
    double = await startPlatformDouble();
  });
  afterAll(async () => double?.stop());

  it('init --platform pairs, keeps the secret in pairing.json (0600) only, and syncs', async () => {
    const tmp = makeTmpHome();
    try {
      const code = await double.control.createPairingCode();
      const r = await runCliAsync(['init', '--platform', double.url, '--code', code, '--json'], { home: tmp.home });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({ paired: true, platform: 'remote', tenant_id: double.tenantId, platform_url: double.url, callback_url: null, mode: 'poll', credentials: 3, designs: 2 });
      const [agent] = await double.control.agents();
      // PLATFORM.md: the machine and a null callback_url (the platform never pushes; we poll).
      expect(agent!.callback_url).toBeNull();
      expect(agent!.machine).toMatchObject({ version: '0.2.0' });
      const pairing = JSON.parse(readFileSync(join(tmp.home, 'pairing.json'), 'utf8')) as { pairing: Record<string, unknown> };
      expect(pairing.pairing).toMatchObject({ platform: 'remote', tenant_id: double.tenantId, agent_id: agent!.agent_id, agent_secret: agent!.agent_secret });
      expect(statSync(join(tmp.home, 'pairing.json')).mode & 0o777).toBe(0o600);
      // The secret and the code appear nowhere else: not on stdout, not in any log.
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toContain(agent!.agent_secret);
        expect(text).not.toContain(code);
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('with --callback-url the platform records where to push', async () => {
    const tmp = makeTmpHome();
    try {
      const { agentId, init } = await pairWith(double, tmp.home, ['--callback-url', 'http://127.0.0.1:9/receive']);
      expect(init).toMatchObject({ mode: 'push', callback_url: 'http://127.0.0.1:9/receive' });
      expect((await double.control.agents()).find((a) => a.agent_id === agentId)!.callback_url).toBe('http://127.0.0.1:9/receive');
    } finally {
      tmp.cleanup();
    }
  });

  it('a bad or used code, and a plain-http platform off loopback, are one-line errors (exit 1) that leave the machine unpaired', async () => {
    const tmp = makeTmpHome();
    try {
      const bad = await runCliAsync(['init', '--platform', double.url, '--code', 'NOT-A-CODE'], { home: tmp.home });
      expect(bad.status).toBe(1);
      expect(bad.stderr.trim()).toBe('the platform refused the pairing code: it is wrong, expired or already used; get a new one from the platform console');
      const code = await double.control.createPairingCode();
      const other = makeTmpHome();
      try {
        expect((await runCliAsync(['init', '--platform', double.url, '--code', code], { home: other.home })).status).toBe(0);
      } finally {
        other.cleanup();
      }
      const used = await runCliAsync(['init', '--platform', double.url, '--code', code], { home: tmp.home });
      expect(used.status).toBe(1);
      expect(used.stderr).toContain('the platform refused the pairing code');
      const plain = await runCliAsync(['init', '--platform', 'http://platform.example.com', '--code', 'x'], { home: tmp.home });
      expect(plain.status).toBe(1);
      expect(plain.stderr.trim()).toBe('--platform must be an https:// URL (plain http only on a loopback address), got http://platform.example.com');
      const status = JSON.parse((await runCliAsync(['status', '--json', '--port', '1'], { home: tmp.home })).stdout || '{}') as Record<string, unknown>;
      expect(status.reachable).toBe(false);
      expect(() => readFileSync(join(tmp.home, 'pairing.json'))).toThrow();
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a running service and its remote platform', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let second: PlatformDouble;
  let svc: ServiceProcess;
  let call: ReturnType<typeof authed>;
  const where = () => ({ home: tmp.home, reader: call });

  beforeAll(async () => {
    [double, second] = await Promise.all([startPlatformDouble({ tenantId: 11 }), startPlatformDouble({ tenantId: 22 })]);
    await pairWith(double, tmp.home);
    svc = await startServiceProcess({ home: tmp.home });
    call = authed(svc.url, wrapperFor(tmp.home));
  });
  afterAll(async () => {
    await svc?.stop();
    await Promise.all([double?.stop(), second?.stop()]);
    tmp.cleanup();
  });

  it('/health says paired, the tenant and the platform kind', async () => {
    const health = (await (await fetch(`${svc.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true, paired: true, tenant_id: 11, platform: 'remote', cache: { credentials: 3, designs: 2 } });
  });

  it('POST /v1/sync reloads the catalogue: a design changed on the platform is served without a restart', async () => {
    const [standard] = (await double.control.designs()).filter((d) => d.design_key === double.keys.designs.standard);
    await double.control.upsertDesign({ ...standard!, name: 'Changed on the platform', stamp: { ...standard!.stamp, lines: [{ text: 'Approved by {{signer_name}}', size: 11 }] } });
    const sync = await postJson(call, '/v1/sync', {});
    expect(sync.status).toBe(200);
    expect(await sync.json()).toEqual({ ok: true, credentials: 3, designs: 2, cache: { credentials: 3, designs: 2 } });
    const designs = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string; name: string }[] }).designs;
    expect(designs.find((d) => d.design_key === double.keys.designs.standard)!.name).toBe('Changed on the platform');
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: Record<string, unknown>[] }).credentials;
    expect(creds.map((c) => c.engine)).toEqual(['platform', 'platform', 'platform']);
    expect(creds.find((c) => c.type === 'evm')!.address).toBe(double.walletAddress);
  });

  it('a platform 500 on sync is retried 3 times, then 502; the old cache keeps serving', async () => {
    await double.control.upsertDesign({ design_key: 'will-not-arrive', name: 'Never synced', variables: [], stamp: { page: 'first', x: 10, y: 10, width: 100, height: 30, lines: [] } });
    await double.control.addFault({ path: 'credentials', action: 500 });
    const before = (await double.control.log()).filter((l) => l.path === '/agent/v1/credentials').length;
    const res = await postJson(call, '/v1/sync', {});
    await expectError(res, 502, 'the platform answered HTTP 500', where());
    expect((await double.control.log()).filter((l) => l.path === '/agent/v1/credentials').length - before).toBe(3);
    await double.control.clearFaults();
    await double.control.deleteDesign('will-not-arrive');
    const designs = ((await (await call('/v1/designs')).json()) as { designs: unknown[] }).designs;
    expect(designs).toHaveLength(2);
  });

  it('re-pairing while serving: the running service picks up the new platform without a restart', async () => {
    await pairWith(second, tmp.home);
    const health = (await (await fetch(`${svc.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ paired: true, tenant_id: 22, platform: 'remote' });
    expect((await postJson(call, '/v1/sync', {})).status).toBe(200);
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string }[] }).credentials;
    expect(creds.map((c) => c.credential_key).sort()).toEqual([second.keys.rsa.credential_key, second.keys.p256.credential_key, second.keys.wallet.credential_key].sort());
  });

  it('a revoked pairing: sync and sign answer 409, /health shows unpaired, PENDING platform requests end ERROR', async () => {
    await second.control.setSettings({ approval: { mode: 'manual' } });
    const pending = await accept(call, '/v1/blockchain/sign', { tx_hash: '0x' + '11'.repeat(32), credential_key: second.keys.wallet.credential_key });
    const [agent] = await second.control.agents();
    await second.control.revokeAgent(agent!.agent_id);
    await expectError(await postJson(call, '/v1/sync', {}), 409, /the platform revoked this machine's pairing \(HTTP 401\)/, where());
    const health = (await (await fetch(`${svc.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ paired: false, tenant_id: null });
    await expectError(await postJson(call, '/v1/blockchain/sign', { tx_hash: '0x' + '22'.repeat(32), credential_key: second.keys.wallet.credential_key }), 409, /the platform revoked this machine's pairing \(HTTP 401\)/, where());
    const result = await (async () => {
      for (;;) {
        const r = (await (await call(`/v1/results/${pending}?wait=5`)).json()) as Record<string, unknown>;
        if (r.status !== 'PENDING') return r;
      }
    })();
    expect(result).toMatchObject({ status: 'ERROR' });
    expect(String(result.error)).toMatch(/revoked/);
    expect(readErrorsJsonl(tmp.home).some((e) => e.request_id === pending && /revoked/.test(e.short))).toBe(true);
  }, 60_000);
});
