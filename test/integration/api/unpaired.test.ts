import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_MESSAGE, expectError, HASH_A, postJson, type Call } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { startServiceInProcess, type InProcessService } from '../../helpers/in-process-service';
import { authed, waitForResult } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * CONTRACT order of checks on an unpaired machine: route (404/405), then authentication (401),
 * then pairing (409, only on the two sign routes and /v1/sync), then validation (422). The other
 * /v1 routes answer normally, with empty lists.
 */
const NOT_PAIRED = 'this machine is not paired with a platform; run `localsign init`';

let tmp: ReturnType<typeof makeTmpHome>;
let svc: InProcessService;
let call: Call;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-unpaired-');
  // wrapper:create needs no pairing.
  const creds = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: tmp.home }));
  svc = await startServiceInProcess({ home: tmp.home });
  call = authed(svc.url, creds);
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = () => ({ home: tmp.home, reader: call });

describe('an unpaired machine', () => {
  it('GET /health: paired false, tenant_id null, platform null, empty cache', async () => {
    const body = (await (await fetch(svc.url + '/health')).json()) as Record<string, unknown>;
    expect({ ...body, commit: 'x' }).toEqual({
      ok: true,
      service: 'local-signing-service',
      paired: false,
      tenant_id: null,
      version: '0.2.0',
      commit: 'x',
      api_version: 2,
      cache: { credentials: 0, designs: 0 },
      platform: null,
    });
  });

  it('409 on POST /v1/sync and both sign routes, even with a valid-looking body', async () => {
    await expectError(await call('/v1/sync', { method: 'POST' }), 409, NOT_PAIRED, where());
    await expectError(await postJson(call, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: '00000000-0000-4000-8000-000000000000' }), 409, NOT_PAIRED, where());
    await expectError(await postJson(call, '/v1/pades/sign', { pdf_base64: 'JVBERi0=', credential_key: '00000000-0000-4000-8000-000000000000' }), 409, NOT_PAIRED, where());
  });

  it('409 comes before 422: invalid JSON, a non-object and unknown fields still get 409', async () => {
    for (const path of ['/v1/pades/sign', '/v1/blockchain/sign', '/v1/sync']) {
      for (const body of ['{not json', '[]', '{"surprise":1}']) {
        await expectError(await postJson(call, path, body, true), 409, NOT_PAIRED, where());
      }
    }
  });

  it('401 comes before 409, and 404/405 before 401', async () => {
    for (const path of ['/v1/pades/sign', '/v1/blockchain/sign', '/v1/sync']) {
      await expectError(await fetch(svc.url + path, { method: 'POST', body: '{not json' }), 401, AUTH_MESSAGE, where());
      await expectError(await fetch(svc.url + path), 405, `GET is not allowed on ${path}; use POST`, where());
    }
    await expectError(await fetch(svc.url + '/v1/pades'), 404, 'no route GET /v1/pades', where());
  });

  it('the other /v1 routes answer normally, lists empty', async () => {
    const get = async (path: string) => {
      const res = await call(path);
      expect([path, res.status]).toEqual([path, 200]);
      return (await res.json()) as Record<string, unknown[]>;
    };
    expect(await get('/v1/credentials')).toEqual({ credentials: [] });
    expect(await get('/v1/designs')).toEqual({ designs: [] });
    expect(await get('/v1/results')).toEqual({ results: [] });
    const errors = await get('/v1/errors');
    // The refusals above are recorded, newest first, each with its HTTP status.
    expect(errors.errors!.length).toBeGreaterThan(0);
    expect((errors.errors as Record<string, unknown>[]).map((e) => e.status)).toContain(409);
    await expectError(await call('/v1/results/req_doesNotExist'), 404, 'no request req_doesNotExist', where());
  });
});

describe('a pairing the platform revoked counts as unpaired', () => {
  const pairingPath = () => join(tmp.home, 'pairing.json');
  const write = (pairing: Record<string, unknown> | null) => {
    writeFileSync(pairingPath() + '.tmp', JSON.stringify({ pairing }), { mode: 0o600 });
    renameSync(pairingPath() + '.tmp', pairingPath());
  };
  const health = async () => (await (await fetch(svc.url + '/health')).json()) as Record<string, unknown>;

  it('GET /health: tenant_id null and 409 again once the pairing is marked revoked', async () => {
    const pairing = { platform: 'embedded', tenant_id: 0, paired_at: '2026-11-22T10:00:00.000Z' };
    write(pairing);
    expect(await health()).toMatchObject({ paired: true, tenant_id: 0, platform: 'embedded' });
    write({ ...pairing, revoked: true });
    expect(await health()).toMatchObject({ paired: false, tenant_id: null, platform: null });
    // The 409 says why: revoked, not merely unpaired (whichever call saw the platform's 401).
    const revoked = "the platform revoked this machine's pairing (HTTP 401); pair again with `localsign init --platform URL --code CODE`";
    await expectError(await call('/v1/sync', { method: 'POST' }), 409, revoked, where());
    await expectError(await postJson(call, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: '00000000-0000-4000-8000-000000000000' }), 409, revoked, where());
    expect(await (await call('/v1/credentials')).json()).toEqual({ credentials: [] });
    write(null);
  });
});

describe('init while the service runs', () => {
  it('is picked up without a restart (PLATFORM.md): paired, catalogue served, signing works', async () => {
    const init = runCli(['init', '--embedded', '--json'], { home: tmp.home });
    expect(init.status, init.stderr).toBe(0);
    const health = (await (await fetch(svc.url + '/health')).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ paired: true, tenant_id: 0, platform: 'embedded', cache: { credentials: 3, designs: 2 } });
    const { credentials } = (await (await call('/v1/credentials')).json()) as { credentials: { type: string; credential_key: string; address?: string }[] };
    const evm = credentials.find((c) => c.type === 'evm')!;
    const res = await postJson(call, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: evm.credential_key });
    expect(res.status).toBe(202);
    const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
    expect(result).toMatchObject({ status: 'DONE', address: evm.address, chain_id: null });
  });
});

