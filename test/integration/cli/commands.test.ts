import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli } from '../../helpers/cli';
import { freePort } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure, filesContaining, walkModes } from './_cli-expect';

/**
 * The CLI as users run it: every command spawned from dist/localsign.cjs, stdin a pipe (not a TTY),
 * NO_COLOR set. CONTRACT "Command line" and "Names and places".
 */

interface InitOut {
  paired: boolean;
  platform: string;
  tenant_id: number;
  chip: string;
  credentials: number;
  designs: number;
  config_dir: string;
}
interface CachedCredential {
  credential_key: string;
  type: string;
}
const credentialsOf = (home: string): CachedCredential[] =>
  (JSON.parse(readFileSync(join(home, 'cache.json'), 'utf8')) as { credentials: CachedCredential[] }).credentials;


describe('help and usage', () => {
  const tmp = makeTmpHome();
  afterAll(() => tmp.cleanup());

  it('--help lists every command and exits 0', () => {
    const r = runCli(['--help'], { home: tmp.home });
    expect(r.status).toBe(0);
    for (const c of ['serve', 'init', 'sync', 'wrapper:create', 'wrapper:list', 'wrapper:revoke', 'report', 'status']) expect(r.stdout).toContain(c);
  });

  it.each([
    ['init', '--embedded'],
    ['serve', '--request-timeout'],
    ['wrapper:create', '--credential'],
    ['report', '--yes'],
    ['status', '--port'],
  ])('%s --help shows its flags (%s) and exits 0', (command, flag) => {
    const r = runCli([command, '--help'], { home: tmp.home });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(flag);
    expect(r.stderr).toBe('');
  });

  it('an unknown command is a usage error (exit 2) with one line naming it', () => {
    const line = expectOneLineFailure(runCli(['frobnicate'], { home: tmp.home }), 2);
    expect(line).toBe('unknown command frobnicate (see `localsign --help`)');
  });

  it('a first init that fails leaves the machine unpaired', () => {
    const r = runCli(['init', '--embedded', '--chip-module', '/nonexistent/module.so', '--chip-pin-env', 'PIN'], { home: tmp.home });
    expect(expectOneLineFailure(r)).toBe('PKCS#11 module not found: /nonexistent/module.so');
    expect(walkModes(tmp.home).filter((e) => !e.dir).map((e) => e.path)).toEqual([]);
    expect(expectOneLineFailure(runCli(['sync'], { home: tmp.home }))).toBe('this machine is not paired with a platform; run `localsign init`');
  });

  it('report without a request id is a usage error (exit 2), one line', () => {
    expect(expectOneLineFailure(runCli(['report'], { home: tmp.home }), 2)).toBe('missing <REQUEST_ID> for report: The req_… id of the request, or the err_… id of one error (a 422 has no request) (see `localsign report --help`)');
  });
});

describe('init --embedded, wrappers, sync, status (service down)', () => {
  const tmp = makeTmpHome();
  const home = tmp.home;
  let first: InitOut;
  let firstKeys: string[];
  beforeAll(() => {
    const r = runCli(['init', '--embedded', '--json'], { home });
    first = parseJson<InitOut>(r);
    firstKeys = credentialsOf(home).map((c) => c.credential_key).sort();
  });
  afterAll(() => tmp.cleanup());

  it('pairs with the embedded platform: 3 credentials (2 pades, 1 evm), 2 designs', () => {
    expect(first).toEqual({ paired: true, platform: 'embedded', tenant_id: 0, chip: 'soft', credentials: 3, designs: 2, config_dir: home });
    const types = credentialsOf(home).map((c) => c.type).sort();
    expect(types).toEqual(['evm', 'pades', 'pades']);
    for (const k of firstKeys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('config dir is 0700, every subfolder 0700 and every file 0600', () => {
    const entries = walkModes(home);
    expect(entries.map((e) => e.path)).toEqual(expect.arrayContaining(['cache.json', 'embedded.json', 'pairing.json', 'soft-chip.json', 'results', 'work']));
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const wrong = entries.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`);
    expect(wrong).toEqual([]);
  });

  it('running init again keeps the same credential_key UUIDs', () => {
    const again = parseJson<InitOut>(runCli(['init', '--embedded', '--json'], { home }));
    expect(again.credentials).toBe(3);
    expect(credentialsOf(home).map((c) => c.credential_key).sort()).toEqual(firstKeys);
  });

  it('a failed init (wrong --chip-module) changes nothing: same chip, same credentials afterwards', () => {
    const files = ['embedded.json', 'pairing.json', 'soft-chip.json', 'cache.json'];
    const before = files.map((f) => readFileSync(join(home, f), 'utf8'));
    const r = runCli(['init', '--embedded', '--chip-module', join(home, 'no-such-module.so'), '--chip-pin-env', 'LOCALSIGN_TEST_PIN'], { home, env: { LOCALSIGN_TEST_PIN: '1234' } });
    expect(expectOneLineFailure(r)).toBe(`PKCS#11 module not found: ${join(home, 'no-such-module.so')}`);
    expect(files.map((f) => readFileSync(join(home, f), 'utf8'))).toEqual(before);
    // Re-running the plain init must not mint new demo keys (the old credentials would be lost).
    expect(runCli(['init', '--embedded', '--json'], { home }).status).toBe(0);
    expect(credentialsOf(home).map((c) => c.credential_key).sort()).toEqual(firstKeys);
  });

  it('wrapper:create prints key and a ≥128-bit secret once; only a hash is stored', () => {
    const w = parseJson<{ key: string; secret: string; name: string; credentials: string[] | null }>(
      runCli(['wrapper:create', '--json', '--name', 'billing'], { home }),
    );
    expect(Object.keys(w).sort()).toEqual(['credentials', 'key', 'name', 'secret']);
    expect(w.key).toMatch(/^wrp_[A-Za-z0-9_-]+$/);
    expect(w.secret).toMatch(/^wsec_[A-Za-z0-9_-]+$/);
    expect(Buffer.from(w.secret.slice(5), 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(w.name).toBe('billing');
    expect(w.credentials).toBeNull();
    const stored = readFileSync(join(home, 'wrappers.json'), 'utf8');
    expect(stored).toContain(w.key);
    expect(stored).not.toContain(w.secret);
    expect(stored).not.toContain(w.secret.slice(5));
    expect(stored).not.toContain('wsec_');
    expect(filesContaining(home, w.secret.slice(5))).toEqual([]);
  });

  it('wrapper:list never shows secrets, in JSON or text', () => {
    const created = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home }));
    const json = runCli(['wrapper:list', '--json'], { home });
    expect(json.status).toBe(0);
    const list = parseJson<{ wrappers: Record<string, unknown>[] }>(json).wrappers;
    const mine = list.find((x) => x.key === created.key);
    expect(mine && Object.keys(mine).sort()).toEqual(['created_at', 'credentials', 'key', 'name', 'revoked_at']);
    const text = runCli(['wrapper:list'], { home });
    expect(text.stdout).toContain(created.key);
    for (const out of [json.stdout, text.stdout]) {
      expect(out).not.toContain('wsec_');
      expect(out).not.toContain(created.secret.slice(5));
      expect(out).not.toMatch(/secret/i);
    }
  });

  it('wrapper:revoke revokes a key; an unknown key exits 1 with one line', () => {
    const created = parseJson<{ key: string }>(runCli(['wrapper:create', '--json'], { home }));
    const revoked = runCli(['wrapper:revoke', created.key, '--json'], { home });
    expect(revoked.status).toBe(0);
    expect(parseJson<{ key: string; revoked_at: string }>(revoked)).toEqual({ key: created.key, revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    const listed = parseJson<{ wrappers: { key: string; revoked_at: string | null }[] }>(runCli(['wrapper:list', '--json'], { home }));
    expect(listed.wrappers.find((w) => w.key === created.key)?.revoked_at).toMatch(/Z$/);
    expect(expectOneLineFailure(runCli(['wrapper:revoke', 'wrp_doesnotexist'], { home }))).toBe('no wrapper key wrp_doesnotexist');
    expectOneLineFailure(runCli(['wrapper:revoke'], { home }), 2);
  });

  it('--credential is repeatable; an unknown credential is refused and nothing is created', () => {
    const [a, b] = firstKeys as [string, string];
    const w = parseJson<{ credentials: string[] }>(runCli(['wrapper:create', '--json', '--credential', a, `--credential=${b}`], { home }));
    expect(w.credentials).toEqual([a, b]);
    const before = readFileSync(join(home, 'wrappers.json'), 'utf8');
    const line = expectOneLineFailure(runCli(['wrapper:create', '--json', '--credential', a, '--credential', 'no-such-credential'], { home }));
    expect(line).toBe('unknown credential_key: no-such-credential (see GET /v1/credentials, or run sync)');
    expect(readFileSync(join(home, 'wrappers.json'), 'utf8')).toBe(before);
  });

  it('sync --json reloads the catalog', () => {
    const r = runCli(['sync', '--json'], { home });
    expect(r.status).toBe(0);
    expect(parseJson(r)).toEqual({ ok: true, credentials: 3, designs: 2, synced_at: expect.stringMatching(/Z$/) });
    expect(credentialsOf(home).map((c) => c.credential_key).sort()).toEqual(firstKeys);
  });

  it('status --json with the service down: exit 3 (as sign), reachable false, config_dir; one line on stderr', async () => {
    const port = await freePort();
    const r = runCli(['status', '--json', '--port', String(port)], { home });
    expect(parseJson(r)).toEqual({ reachable: false, url: `http://127.0.0.1:${port}/health`, config_dir: home });
    expect(expectOneLineFailure(r, 3)).toBe(`localsign is not reachable at http://127.0.0.1:${port}/health (config dir ${home})`);
    const human = runCli(['status', '--port', String(port)], { home });
    expect(human.stdout).toBe('');
    expect(expectOneLineFailure(human, 3)).toBe(`localsign is not reachable at http://127.0.0.1:${port}/health (config dir ${home})`);
  });

  it('report for a request with no recorded errors exits 1, one line, no file', () => {
    const out = join(home, 'incident.json');
    const line = expectOneLineFailure(runCli(['report', 'req_neverseen', '--yes', '--out', out], { home }));
    expect(line).toBe('no recorded errors for req_neverseen');
    expect(walkModes(home).some((e) => e.path === 'incident.json')).toBe(false);
  });
});
