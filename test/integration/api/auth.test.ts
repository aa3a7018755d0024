import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_MESSAGE, credentialKeys, expectError, HASH_A, postJson, REQUEST_ID, smallPdf, type Call } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { startServiceInProcess, type InProcessService } from '../../helpers/in-process-service';
import { authed, initEmbeddedWithWrapper } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * spec §5 and CONTRACT "Security": one 401 for every failure of the wrapper headers; the CLI's
 * wrapper:create / wrapper:revoke take effect on the running service's very next request;
 * wrapper:create --credential limits a wrapper (403 on another credential, and it sees only its own).
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: InProcessService;
let creds: { key: string; secret: string };
let call: Call;
let keys: Awaited<ReturnType<typeof credentialKeys>>;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-auth-');
  creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceInProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  keys = await credentialKeys(call);
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = () => ({ home: tmp.home, reader: call });

function withHeaders(headers: Record<string, string>, path = '/v1/credentials') {
  return fetch(svc.url + path, { headers });
}

function createWrapper(args: string[] = []): { key: string; secret: string; name: string; credentials: string[] | null } {
  const r = runCli(['wrapper:create', '--json', ...args], { home: tmp.home });
  expect(r.status, r.stderr).toBe(0);
  return parseJson(r);
}

describe('401: the same body whatever is wrong', () => {
  it('missing headers, unknown key, wrong secret, malformed values', async () => {
    const other = createWrapper(['--name', 'other']);
    const cases: Record<string, string>[] = [
      {},
      { 'x-wrapper-key': creds.key },
      { 'x-wrapper-secret': creds.secret },
      { 'x-wrapper-key': 'wrp_doesNotExist0000', 'x-wrapper-secret': creds.secret },
      { 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret + 'x' },
      { 'x-wrapper-key': creds.key, 'x-wrapper-secret': other.secret },
      { 'x-wrapper-key': creds.key, 'x-wrapper-secret': '' },
      { 'x-wrapper-key': '', 'x-wrapper-secret': creds.secret },
      { 'x-wrapper-key': creds.key.toUpperCase(), 'x-wrapper-secret': creds.secret },
    ];
    for (const headers of cases) await expectError(await withHeaders(headers), 401, AUTH_MESSAGE, where());
    // Both wrappers still work: nothing above locked them out.
    expect((await withHeaders({ 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret })).status).toBe(200);
    expect((await withHeaders({ 'x-wrapper-key': other.key, 'x-wrapper-secret': other.secret })).status).toBe(200);
  });

  it('a wrapper created by the CLI while the service runs is accepted at once', async () => {
    const fresh = createWrapper(['--name', 'fresh']);
    expect(fresh.key).toMatch(/^wrp_[A-Za-z0-9_-]+$/);
    expect(fresh.secret).toMatch(/^wsec_[A-Za-z0-9_-]{22,}$/);
    const res = await withHeaders({ 'x-wrapper-key': fresh.key, 'x-wrapper-secret': fresh.secret });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { credentials: unknown[] }).credentials).toHaveLength(3);
  });

  it('a wrapper revoked by the CLI is refused on the very next request, with the same 401 body', async () => {
    const victim = createWrapper(['--name', 'victim']);
    const headers = { 'x-wrapper-key': victim.key, 'x-wrapper-secret': victim.secret };
    expect((await withHeaders(headers)).status).toBe(200);
    const revoke = runCli(['wrapper:revoke', victim.key], { home: tmp.home });
    expect(revoke.status, revoke.stderr).toBe(0);
    await expectError(await withHeaders(headers), 401, AUTH_MESSAGE, where());
    await expectError(await withHeaders(headers, '/v1/results'), 401, AUTH_MESSAGE, where());
    const sign = await fetch(svc.url + '/v1/blockchain/sign', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ tx_hash: HASH_A, credential_key: keys.evm[0] }),
    });
    await expectError(sign, 401, AUTH_MESSAGE, where());
    // The other wrappers are untouched.
    expect((await call('/v1/credentials')).status).toBe(200);
  });
});

describe('secrets stay out of records', () => {
  it('no wrapper secret in errors.jsonl, errors.log, service.log or the console', async () => {
    const files = ['errors.jsonl', 'errors.log', 'service.log'].map((f) => readFileSync(join(tmp.home, f), 'utf8'));
    const secrets = JSON.parse(readFileSync(join(tmp.home, 'wrappers.json'), 'utf8')) as { wrappers: { secret_sha256: string }[] };
    expect(secrets.wrappers.length).toBeGreaterThan(3);
    for (const text of [...files, svc.output()]) {
      expect(text).not.toContain(creds.secret);
      expect(text).not.toMatch(/wsec_[A-Za-z0-9_-]{10,}/);
    }
    // Only a hash of each secret is stored (CONTRACT Security).
    expect(readFileSync(join(tmp.home, 'wrappers.json'), 'utf8')).not.toContain('wsec_');
  });
});

describe('a wrapper limited with --credential', () => {
  it('sees only its credential and gets 403 for any other one, on both sign routes', async () => {
    const pades = keys.all.find((c) => c.type === 'pades' && String(c.name).includes('P-256'))!;
    const limited = createWrapper(['--name', 'limited', '--credential', pades.credential_key as string]);
    expect(limited.credentials).toEqual([pades.credential_key]);
    const lcall = authed(svc.url, limited);

    const listed = (await (await lcall('/v1/credentials')).json()) as { credentials: Record<string, unknown>[] };
    expect(listed.credentials).toEqual([pades]);

    const pdf = (await smallPdf()).toString('base64');
    const otherPades = keys.pades.find((k) => k !== pades.credential_key)!;
    const scopeMessage = 'this application key may not use that credential_key';
    // A scope 403 is the limited application's own failure: listed for it, not for the others.
    const own = { ...where(), reader: lcall };
    const id = await expectError(await postJson(lcall, '/v1/pades/sign', { pdf_base64: pdf, credential_key: otherPades }), 403, scopeMessage, own);
    await expectError(await postJson(lcall, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: keys.evm[0] }), 403, scopeMessage, own);
    // Scope is checked before existence: an unknown key is just another credential it may not use.
    await expectError(await postJson(lcall, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: '00000000-0000-4000-8000-000000000000' }), 403, scopeMessage, own);
    const others = (await (await call('/v1/errors?limit=1000')).json()) as { errors: { error_id: string }[] };
    expect(others.errors.map((e) => e.error_id)).not.toContain(id);

    const ok = await postJson(lcall, '/v1/pades/sign', { pdf_base64: pdf, credential_key: pades.credential_key });
    expect(ok.status).toBe(202);
    const accepted = (await ok.json()) as Record<string, unknown>;
    expect(accepted.status).toBe('PENDING');
    expect(accepted.request_id).toMatch(REQUEST_ID);
  });
});
