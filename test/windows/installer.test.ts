import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leavePendingCopy } from '../helpers/pending-request';
import { authed, waitForResult } from '../helpers/service-process';
import { assertWine, createPrefix, DATA, freePort, INSTDIR, installedLocalsign, runWine, type WinePrefix, until } from './wine';

/**
 * Issue 9, the Windows installer under wine 8 (prefix set to Windows 10, output to files): the
 * NSIS setup built by build/installers.mjs installs silently, registers the service (shawl hosts
 * localsign.exe under wine's service manager), pairs from /PLATFORM= /CODE=, starts it; an
 * upgrade keeps the data and resumes a PENDING request; localsign is on the system PATH (issue 19);
 * uninstall.exe /S removes it (and its PATH entry), /PURGE the data.
 *
 * What wine cannot show: the data dir's ACL (wine's icacls is a stub), a real SCM's recovery
 * actions and start before logon, SmartScreen and Authenticode policy (the signing test checks
 * the signature with osslsigncode instead).
 */
const ROOT = resolve(__dirname, '../..');
const UNINST_KEY = 'HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\localsign';
const CODE = `enrol-${randomBytes(12).toString('hex')}`;

describe('Windows installer under wine (NSIS, silent, service via shawl)', () => {
  let wine: WinePrefix;
  let work: string;
  const setup: Record<string, string> = {};
  let port: number;
  let wrapper: { key: string; secret: string };
  let doneId = '';
  const kept: Record<string, string> = {};

  const { data, exe, health, scState, systemPath } = installedLocalsign(() => wine, () => port);
  const displayVersion = async () => /DisplayVersion\s+REG_SZ\s+(\S+)/.exec((await runWine(wine, ['reg', 'query', UNINST_KEY, '/v', 'DisplayVersion'])).stdout)?.[1] ?? null;

  beforeAll(async () => {
    assertWine();
    for (const f of ['localsign.exe', 'shawl.exe']) {
      if (!existsSync(join(ROOT, 'dist', f))) throw new Error(`dist/${f} is missing: run npm run test:windows, which builds it first`);
    }
    work = mkdtempSync(join(tmpdir(), 'localsign-nsis-'));
    for (const version of ['0.2.0', '0.2.1']) {
      const out = join(work, version);
      execFileSync(process.execPath, ['build/installers.mjs'], {
        cwd: ROOT,
        env: { ...process.env, LOCALSIGN_INSTALLERS: 'nsis', LOCALSIGN_INSTALLERS_SKIP_SEA: '1', LOCALSIGN_INSTALLERS_FAST: '1', LOCALSIGN_INSTALLERS_OUT: out, LOCALSIGN_INSTALLERS_VERSION: version },
        stdio: 'ignore',
      });
      setup[version] = join(out, readdirSync(out).find((f) => f.endsWith('-setup.exe'))!);
    }
    wine = await createPrefix();
    port = await freePort();
  }, 240_000);
  afterAll(() => {
    wine?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs silently with /PLATFORM=embedded /CODE=… /PORT=…: files, uninstall entry, service running, paired, /health answers', async () => {
    const run = await runWine(wine, [setup['0.2.0']!, '/S', '/PLATFORM=embedded', `/CODE=${CODE}`, `/PORT=${port}`], {}, 180_000);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    for (const f of ['localsign.exe', 'shawl.exe', 'uninstall.exe', 'node_modules\\koffi\\package.json', 'node_modules\\@koromix\\koffi-win32-x64\\win32_x64\\koffi.node']) {
      expect(existsSync(wine.toUnix(`${INSTDIR}\\${f}`)), f).toBe(true);
    }
    expect(await displayVersion()).toBe('0.2.0');
    expect(await scState()).toBe('RUNNING');
    const h = await until('/health', health);
    expect(h).toMatchObject({ ok: true, paired: true, tenant_id: 0, platform: 'embedded', version: '0.2.0' });
    expect(JSON.parse(readFileSync(data('service.json'), 'utf8'))).toEqual({ home: DATA, port });
    // The enrolment file is gone once paired, and the code is in no file of the data dir.
    expect(existsSync(data('enrol'))).toBe(false);
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    for (const f of walk(wine.toUnix(DATA))) expect(readFileSync(f, 'latin1'), f).not.toContain(CODE);
    expect(run.stdout + run.stderr).not.toContain(CODE);

    // On the system PATH (issue 19): a prompt finds `localsign` without its folder.
    expect((await systemPath()).split(';')).toContain(INSTDIR);
    const version = await runWine(wine, ['cmd', '/c', 'localsign', 'version']);
    expect(version.stdout, version.stderr).toMatch(/^localsign \d+\.\d+\.\d+ /);
  }, 240_000);

  it("the CLI finds the service's dir with no flag: wrapper:create works against the running service; service status", async () => {
    const created = await exe(['wrapper:create', '--json']);
    expect(created.code, created.stderr).toBe(0);
    wrapper = JSON.parse(created.stdout) as { key: string; secret: string };
    const call = authed(`http://127.0.0.1:${port}`, wrapper);
    const { credentials } = (await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string; address?: string }[] };
    const evm = credentials.find((c) => c.type === 'evm')!;
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: 'ef'.repeat(32), credential_key: evm.credential_key, chain_id: 1 }) });
    expect(res.status, await res.clone().text()).toBe(202);
    doneId = ((await res.json()) as { request_id: string }).request_id;
    expect(await waitForResult(call, doneId, 60_000)).toMatchObject({ status: 'DONE', address: evm.address });

    const status = await exe(['service', 'status', '--json']);
    // The exe reaches its own /health through the TypeScript client's node:http (issue 18). With
    // Node's fetch it could not under wine, whose sockets refuse the options fetch sets (README).
    expect(JSON.parse(status.stdout)).toMatchObject({ manager: 'windows', installed: true, running: true, healthy: true, port, config_dir: DATA, service_file: `${DATA}\\service.json` });
  }, 180_000);

  it('upgrades to 0.2.1 silently: port, keys, credentials and results kept; a request PENDING at the upgrade resumes', async () => {
    const stop = await exe(['service', 'stop']);
    expect(stop.code, stop.stderr).toBe(0);
    await until('/health down', async () => (await health()) === null);
    for (const f of ['pairing.json', 'wrappers.json', 'soft-chip.json', 'embedded.json']) kept[f] = readFileSync(data(f), 'utf8');
    const stuckId = leavePendingCopy(data('requests.jsonl'), doneId);

    const exeBefore = statSync(wine.toUnix(`${INSTDIR}\\localsign.exe`)).mtimeMs;
    const run = await runWine(wine, [setup['0.2.1']!, '/S'], {}, 180_000);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(await displayVersion()).toBe('0.2.1');
    expect(statSync(wine.toUnix(`${INSTDIR}\\localsign.exe`)).mtimeMs).toBeGreaterThan(exeBefore);
    expect(JSON.parse(readFileSync(data('service.json'), 'utf8'))).toEqual({ home: DATA, port });
    for (const [f, text] of Object.entries(kept)) expect(readFileSync(data(f), 'utf8'), f).toBe(text);
    expect((await systemPath()).split(';').filter((p) => p === INSTDIR)).toHaveLength(1); // not twice
    await until('/health after the upgrade', health);
    const call = authed(`http://127.0.0.1:${port}`, wrapper);
    expect(await waitForResult(call, stuckId, 60_000)).toMatchObject({ status: 'DONE', request_id: stuckId });
    expect(await waitForResult(call, doneId, 60_000)).toMatchObject({ status: 'DONE' });
    expect(readFileSync(data('service.log'), 'utf8')).toContain('after restart: 1 request(s) resumed, 0 set to ERROR');
  }, 240_000);

  it('uninstall.exe /S removes the service, the files and the uninstall entry and keeps the data; /PURGE deletes it', async () => {
    const run = await runWine(wine, [`${INSTDIR}\\uninstall.exe`, '/S'], {}, 120_000);
    expect(run.code).toBe(0);
    // The NSIS uninstaller copies itself to %TEMP% and returns at once: wait for its work.
    await until('the program dir removed', () => !existsSync(wine.toUnix(INSTDIR)), 90_000);
    expect(await scState()).toBe(null);
    expect(await health()).toBe(null);
    expect((await runWine(wine, ['reg', 'query', UNINST_KEY])).code).not.toBe(0);
    expect(await systemPath()).not.toContain('localsign');
    for (const [f, text] of Object.entries(kept)) expect(readFileSync(data(f), 'utf8'), f).toBe(text);

    const again = await runWine(wine, [setup['0.2.1']!, '/S'], {}, 180_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await until('/health after reinstalling', health)).toMatchObject({ paired: true }); // the kept data
    await runWine(wine, [`${INSTDIR}\\uninstall.exe`, '/S', '/PURGE'], {}, 120_000);
    await until('the data dir purged', () => !existsSync(wine.toUnix(DATA)) && !existsSync(wine.toUnix(INSTDIR)), 90_000);
    expect(await scState()).toBe(null);
  }, 300_000);
});
