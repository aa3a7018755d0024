import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSystemdUnit } from '../../../src/install/systemd-unit';
import { leavePendingCopy } from '../../helpers/pending-request';
import { ensureLinuxSea } from '../../helpers/sea-build';
import { authed, waitForResult } from '../../helpers/service-process';
import { readUnit, startUnit, waitForHealth, type UnitProcess } from '../../helpers/systemd-unit-run';
import { freePort } from '../../windows/wine';

/**
 * Issue 9, the .deb: built by build/installers.mjs, installed with dpkg into this machine's root
 * (the session runs as root), its unit started as systemd would (systemd is not PID 1 here), then
 * upgraded, removed and purged. Cleans up after itself: dpkg -P, and the user goes with it.
 */
const ROOT = resolve(__dirname, '../../..');
const HOME = '/var/lib/localsign';
const UNIT = '/lib/systemd/system/localsign.service';
const SERVICE_FILE = '/etc/localsign/service.json';
const CODE = `enrol-${randomBytes(12).toString('hex')}`;

function sh(cmd: string, args: string[]) {
  // dpkg has no lock timeout: on a machine where something else runs apt or dpkg, wait for it.
  for (let tries = 0; ; tries += 1) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (!(cmd === 'dpkg' && /lock/i.test(r.stderr) && r.status !== 0 && tries < 120)) return r;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
}
const installed = () => sh('dpkg-query', ['-W', '-f', '${Status}', 'localsign']).stdout.includes('install ok installed');
const localsign = (args: string[]) => sh('/usr/bin/localsign', args);
const files = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)])) : [];

describe('the .deb (dpkg -i, the unit run as systemd would, upgrade, dpkg -r, dpkg -P)', () => {
  let work: string;
  let deb: string;
  let service: UnitProcess | undefined;
  let port: number;
  let wrapper: { key: string; secret: string };
  const kept: Record<string, string> = {};
  let doneId = '';
  let stuckId = '';

  beforeAll(() => {
    if (process.getuid?.() !== 0) throw new Error('the .deb test installs into this machine with dpkg: run it as root (CI does)');
    if (installed() || sh('getent', ['passwd', 'localsign']).status === 0) {
      throw new Error('a localsign package or user already exists on this machine: the test installs and purges its own (dpkg -P localsign)');
    }
    ensureLinuxSea();
    work = mkdtempSync(join(tmpdir(), 'localsign-deb-'));
    const out = join(work, 'out');
    execFileSync(process.execPath, ['build/installers.mjs'], {
      cwd: ROOT,
      env: { ...process.env, LOCALSIGN_INSTALLERS: 'deb', LOCALSIGN_INSTALLERS_SKIP_SEA: '1', LOCALSIGN_INSTALLERS_FAST: '1', LOCALSIGN_INSTALLERS_OUT: out },
      stdio: 'ignore',
    });
    deb = join(out, readdirSync(out).find((f) => f.endsWith('.deb'))!);
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    if (installed() || existsSync(HOME)) sh('dpkg', ['-P', 'localsign']);
    if (sh('getent', ['passwd', 'localsign']).status === 0) sh('userdel', ['localsign']);
    rmSync('/etc/localsign', { recursive: true, force: true });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs with an enrolment preseeded: system user, private config dir, the unit, paired, the code consumed and never printed', () => {
    mkdirSync('/etc/localsign', { recursive: true });
    writeFileSync('/etc/localsign/enrol', `PLATFORM=embedded\nCODE=${CODE}\n`, { mode: 0o600 });
    const r = sh('dpkg', ['-i', deb]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('localsign: paired (enrolment file consumed)');
    expect(r.stdout + r.stderr).not.toContain(CODE);

    const [name, , uid, , , home, shell] = sh('getent', ['passwd', 'localsign']).stdout.trim().split(':');
    expect([name, home, shell]).toEqual(['localsign', HOME, '/usr/sbin/nologin']);
    expect(Number(uid)).toBeLessThan(1000); // a system user
    const st = statSync(HOME);
    expect({ mode: (st.mode & 0o777).toString(8), uid: st.uid }).toEqual({ mode: '700', uid: Number(uid) });

    // The unit the package ships is the one `service install` renders, and systemd accepts it.
    expect(readFileSync(UNIT, 'utf8')).toBe(renderSystemdUnit({ exec: ['/usr/bin/localsign'], scope: 'system', home: HOME, user: 'localsign' }));
    const verify = sh('systemd-analyze', ['verify', UNIT]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(JSON.parse(readFileSync(SERVICE_FILE, 'utf8'))).toEqual({ home: HOME, port: 8300 });

    // Paired by the postinst, as the service user; the enrolment file is gone and the code is nowhere.
    expect(existsSync('/etc/localsign/enrol')).toBe(false);
    expect(existsSync(join(HOME, 'enrol'))).toBe(false);
    expect(JSON.parse(readFileSync(join(HOME, 'pairing.json'), 'utf8'))).toMatchObject({ pairing: { platform: 'embedded', tenant_id: 0 } });
    for (const f of files(HOME)) {
      expect(statSync(f).uid, f).toBe(Number(uid));
      expect(readFileSync(f, 'utf8'), f).not.toContain(CODE);
    }
    expect(readFileSync('/var/log/dpkg.log', 'utf8')).not.toContain(CODE);
    const version = localsign(['--version']);
    expect(version.stdout).toMatch(/^0\.2\.0 \(([0-9a-f]{7,})\)\n$/);
  }, 120_000);

  it("starts as the unit would and answers /health; the CLI finds the service's dir with no flag, an admin's wrapper:create works against it", async () => {
    port = await freePort();
    // The operator's way to change the port: the conffile (kept across upgrades).
    writeFileSync(SERVICE_FILE, JSON.stringify({ home: HOME, port }, null, 2) + '\n');
    service = startUnit(readUnit(UNIT), HOME);
    const health = await waitForHealth(port, service);
    expect(health).toMatchObject({ ok: true, paired: true, platform: 'embedded', version: '0.2.0' });
    expect(localsign(['--version']).stdout).toContain(`(${String(health.commit)})`);

    // As root, no --home: the service's dir, and files the service user owns.
    const created = localsign(['wrapper:create', '--json']);
    expect(created.status, created.stderr).toBe(0);
    wrapper = JSON.parse(created.stdout) as { key: string; secret: string };
    expect(statSync(join(HOME, 'wrappers.json')).uid).toBe(statSync(HOME).uid);
    const call = authed(`http://127.0.0.1:${port}`, wrapper);
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string; address?: string }[] }).credentials;
    const evm = creds.find((c) => c.type === 'evm')!;
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: 'cd'.repeat(32), credential_key: evm.credential_key, chain_id: 1 }) });
    expect(res.status, await res.clone().text()).toBe(202);
    doneId = ((await res.json()) as { request_id: string }).request_id;
    expect(await waitForResult(call, doneId)).toMatchObject({ status: 'DONE', address: evm.address });

    const status = localsign(['service', 'status', '--json']);
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ manager: 'systemd', installed: true, running: null, healthy: true, port, config_dir: HOME, service_file: SERVICE_FILE, definition: UNIT });
    const cliStatus = JSON.parse(localsign(['status', '--json']).stdout) as Record<string, unknown>;
    expect(cliStatus).toMatchObject({ reachable: true, config_dir: HOME, paired: true });

    expect(await service.stop()).toBe(0);
  }, 120_000);

  it('upgrades over it: config dir, keys, credentials and results kept; a request PENDING at the upgrade resumes', async () => {
    for (const f of ['pairing.json', 'wrappers.json', 'soft-chip.json', 'embedded.json', 'cache.json']) kept[f] = readFileSync(join(HOME, f), 'utf8');
    // A request accepted but not signed when the service stopped, as the journal holds one.
    stuckId = leavePendingCopy(join(HOME, 'requests.jsonl'), doneId);

    // The newer version: the same files under a higher version number.
    const tree = join(work, 'newer');
    execFileSync('dpkg-deb', ['-R', deb, tree]);
    const control = join(tree, 'DEBIAN', 'control');
    writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, 'Version: 0.2.1~test1'));
    const newer = join(work, 'localsign_0.2.1~test1_amd64.deb');
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', tree, newer], { stdio: 'ignore' });
    const r = sh('dpkg', ['-i', newer]);
    expect(r.status, r.stderr).toBe(0);
    expect(sh('dpkg-query', ['-W', '-f', '${Version}', 'localsign']).stdout).toBe('0.2.1~test1');

    for (const [f, text] of Object.entries(kept)) expect(readFileSync(join(HOME, f), 'utf8'), f).toBe(text);
    expect(JSON.parse(readFileSync(SERVICE_FILE, 'utf8'))).toEqual({ home: HOME, port }); // the operator's port survives
    service = startUnit(readUnit(UNIT), HOME);
    await waitForHealth(port, service);
    const call = authed(`http://127.0.0.1:${port}`, wrapper);
    expect(await waitForResult(call, stuckId)).toMatchObject({ status: 'DONE', request_id: stuckId });
    expect(await waitForResult(call, doneId)).toMatchObject({ status: 'DONE', request_id: doneId });
    expect(service.output()).toContain('after restart: 1 request(s) resumed, 0 set to ERROR');
    expect(await service.stop()).toBe(0);
  }, 120_000);

  it('dpkg -r keeps the config dir and the service file; installed again with LOCALSIGN_ENROL_* it pairs; dpkg -P deletes them and the user', () => {
    const removed = sh('dpkg', ['-r', 'localsign']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync('/usr/bin/localsign')).toBe(false);
    expect(existsSync(UNIT)).toBe(false);
    for (const [f, text] of Object.entries(kept)) expect(readFileSync(join(HOME, f), 'utf8'), f).toBe(text);
    expect(existsSync(SERVICE_FILE)).toBe(true);

    // The enrolment from dpkg's environment (what a fleet tool passes): paired again, keys kept.
    const code = `env-${randomBytes(8).toString('hex')}`;
    const again = spawnSync('dpkg', ['-i', deb], { encoding: 'utf8', env: { ...process.env, LOCALSIGN_ENROL_PLATFORM: 'embedded', LOCALSIGN_ENROL_CODE: code } });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('localsign: paired (enrolment file consumed)');
    expect(again.stdout + again.stderr).not.toContain(code);
    expect(existsSync(join(HOME, 'enrol'))).toBe(false);
    expect(readFileSync(join(HOME, 'soft-chip.json'), 'utf8')).toBe(kept['soft-chip.json']);
    for (const f of files(HOME)) expect(readFileSync(f, 'utf8'), f).not.toContain(code);

    const purged = sh('dpkg', ['-P', 'localsign']);
    expect(purged.status, purged.stderr).toBe(0);
    expect(existsSync(HOME)).toBe(false);
    expect(existsSync('/etc/localsign')).toBe(false);
    expect(sh('getent', ['passwd', 'localsign']).status).toBe(2);
    expect(sh('getent', ['group', 'localsign']).status).toBe(2);
  }, 60_000);
});
