import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSystemdUnit } from '../../../src/install/systemd-unit';
import { hostChanges, readHostState, type HostState } from '../../helpers/host-state';
import { leavePendingCopy } from '../../helpers/pending-request';
import { openScratchRoot, type ScratchRoot } from '../../helpers/scratch-root';
import { ensureLinuxSea } from '../../helpers/sea-build';
import { authed, waitForResult } from '../../helpers/service-process';
import { readUnit, startUnit, waitForHealth, type UnitProcess } from '../../helpers/systemd-unit-run';
import { freePort } from '../../windows/wine';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Issue 9, the .deb: built by build/installers.mjs, installed with dpkg, its unit started as
 * systemd would (systemd is not PID 1 here), then upgraded, removed and purged. Issue 19: all of it
 * in a throwaway root (test/helpers/scratch-root.ts: a mount namespace of its own, a copy of /etc
 * and of dpkg's database, this machine's /usr under an overlay), so the package, the `localsign`
 * user and their files exist only there; the last test checks that this machine's users, groups
 * and packages are as they were. The scratch root's namespace needs root: as another user the
 * file is skipped, and says why in its name.
 */
const ROOT = resolve(__dirname, '../../..');
const HOME = '/var/lib/localsign';
const UNIT = '/lib/systemd/system/localsign.service';
const SERVICE_FILE = '/etc/localsign/service.json';
const CODE = `enrol-${randomBytes(12).toString('hex')}`;
const NOT_ROOT = process.getuid?.() !== 0;
const UNPAIRED =
  'localsign: not paired; pair with: sudo localsign init --platform URL --code CODE (or: sudo localsign init --embedded), or enrol at install from /etc/localsign/enrol or LOCALSIGN_ENROL_PLATFORM with LOCALSIGN_ENROL_CODE_FILE';

const files = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)])) : [];

describe.skipIf(NOT_ROOT)(`the .deb in a throwaway root (dpkg -i, the unit run as systemd would, upgrade, dpkg -r, dpkg -P)${NOT_ROOT ? ': skipped, its mount namespace needs root (CI runs as root)' : ''}`, () => {
  let work: string;
  let deb: string;
  let s: ScratchRoot;
  let host: HostState;
  const sh = (cmd: string, args: string[], env: Record<string, string> = {}) => s.run([cmd, ...args], { DEBIAN_FRONTEND: 'noninteractive', ...env });
  const installed = () => sh('dpkg-query', ['-W', '-f', '${Status}', 'localsign']).stdout.includes('install ok installed');
  const localsign = (args: string[]) => sh('/usr/bin/localsign', args);
  const inRoot = (file: string) => {
    // The package file, where dpkg in the scratch root reads it.
    copyFileSync(file, s.at(`/tmp/${basename(file)}`));
    return `/tmp/${basename(file)}`;
  };
  let service: UnitProcess | undefined;
  let port: number;
  let wrapper: { key: string; secret: string };
  const kept: Record<string, string> = {};
  let doneId = '';
  let stuckId = '';

  beforeAll(async () => {
    host = readHostState();
    ensureLinuxSea();
    work = tempDir('localsign-deb-');
    const out = join(work, 'out');
    execFileSync(process.execPath, ['build/installers.mjs'], {
      cwd: ROOT,
      env: { ...process.env, LOCALSIGN_INSTALLERS: 'deb', LOCALSIGN_INSTALLERS_SKIP_SEA: '1', LOCALSIGN_INSTALLERS_FAST: '1', LOCALSIGN_INSTALLERS_OUT: out },
      stdio: 'ignore',
    });
    deb = join(out, readdirSync(out).find((f) => f.endsWith('.deb'))!);
    port = await freePort();
    s = openScratchRoot({ dpkg: true });
    // The copies start as this machine is: one left by an old run of this test would be in them.
    if (installed() || sh('getent', ['passwd', 'localsign']).status === 0) {
      throw new Error('this machine has a localsign package or user (not made by this test): `dpkg -P localsign` removes both');
    }
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    s?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs with an enrolment preseeded and LOCALSIGN_PORT: system user, private config dir, the unit, the port, paired, the code consumed and never printed', () => {
    mkdirSync(s.at('/etc/localsign'), { recursive: true });
    writeFileSync(s.at('/etc/localsign/enrol'), `PLATFORM=embedded\nCODE=${CODE}\n`, { mode: 0o600 });
    const r = sh('dpkg', ['-i', inRoot(deb)], { LOCALSIGN_PORT: String(port) });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('localsign: paired (enrolment file consumed)');
    expect(r.stdout).toContain(`localsign: listens on port ${port} (${SERVICE_FILE})`);
    expect(r.stdout).not.toContain('not paired');
    expect(r.stdout + r.stderr).not.toContain(CODE);

    const [name, , uid, , , home, shell] = sh('getent', ['passwd', 'localsign']).stdout.trim().split(':');
    expect([name, home, shell]).toEqual(['localsign', HOME, '/usr/sbin/nologin']);
    expect(Number(uid)).toBeLessThan(1000); // a system user
    expect(readHostState().users.filter((u) => u.startsWith('localsign:')), 'the user is in the scratch root only').toEqual([]);
    const st = statSync(s.at(HOME));
    expect({ mode: (st.mode & 0o777).toString(8), uid: st.uid }).toEqual({ mode: '700', uid: Number(uid) });

    // The unit the package ships is the one `service install` renders, and systemd accepts it.
    expect(readFileSync(s.at(UNIT), 'utf8')).toBe(renderSystemdUnit({ exec: ['/usr/bin/localsign'], scope: 'system', home: HOME, user: 'localsign' }));
    const verify = sh('systemd-analyze', ['verify', UNIT]);
    expect(verify.status, verify.stderr).toBe(0);
    // The port given at install, in the service file the unit's `serve` reads.
    expect(JSON.parse(readFileSync(s.at(SERVICE_FILE), 'utf8'))).toEqual({ home: HOME, port });
    expect(statSync(s.at(SERVICE_FILE)).mode & 0o777).toBe(0o644);

    // Paired by the postinst, as the service user; the enrolment file is gone and the code is nowhere.
    expect(existsSync(s.at('/etc/localsign/enrol'))).toBe(false);
    expect(existsSync(s.at(join(HOME, 'enrol')))).toBe(false);
    expect(JSON.parse(readFileSync(s.at(join(HOME, 'pairing.json')), 'utf8'))).toMatchObject({ pairing: { platform: 'embedded', tenant_id: 0 } });
    for (const f of files(s.at(HOME))) {
      expect(statSync(f).uid, f).toBe(Number(uid));
      expect(readFileSync(f, 'utf8'), f).not.toContain(CODE);
    }
    expect(readFileSync(s.at('/var/log/dpkg.log'), 'utf8')).not.toContain(CODE);
    const version = localsign(['--version']);
    // ", test build" when the package was made from npm test's build (it says which build it holds).
    expect(version.stdout).toMatch(/^0\.2\.0 \(([0-9a-f]{7,})(, test build)?\)\n$/);
  }, 120_000);

  it("starts as the unit would and answers /health on the install's port; the CLI finds the service's dir with no flag, an admin's wrapper:create works against it", async () => {
    service = startUnit(readUnit(s.at(UNIT)), HOME, s.enter);
    const health = await waitForHealth(port, service);
    expect(health).toMatchObject({ ok: true, paired: true, platform: 'embedded', version: '0.2.0' });
    expect(localsign(['--version']).stdout).toMatch(new RegExp(`^0\\.2\\.0 \\(${String(health.commit)}(, test build)?\\)$`, 'm'));

    // As root, no --home: the service's dir, and files the service user owns.
    const created = localsign(['wrapper:create', '--json']);
    expect(created.status, created.stderr).toBe(0);
    wrapper = JSON.parse(created.stdout) as { key: string; secret: string };
    expect(statSync(s.at(join(HOME, 'wrappers.json'))).uid).toBe(statSync(s.at(HOME)).uid);
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
    for (const f of ['pairing.json', 'wrappers.json', 'soft-chip.json', 'embedded.json', 'cache.json']) kept[f] = readFileSync(s.at(join(HOME, f)), 'utf8');
    // A request accepted but not signed when the service stopped, as the journal holds one.
    stuckId = leavePendingCopy(s.at(join(HOME, 'requests.jsonl')), doneId);

    // The newer version: the same files under a higher version number.
    const tree = join(work, 'newer');
    execFileSync('dpkg-deb', ['-R', deb, tree]);
    const control = join(tree, 'DEBIAN', 'control');
    writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, 'Version: 0.2.1~test1'));
    const newer = join(work, 'localsign_0.2.1~test1_amd64.deb');
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', tree, newer], { stdio: 'ignore' });
    const r = sh('dpkg', ['-i', inRoot(newer)]);
    expect(r.status, r.stderr).toBe(0);
    expect(sh('dpkg-query', ['-W', '-f', '${Version}', 'localsign']).stdout).toBe('0.2.1~test1');

    for (const [f, text] of Object.entries(kept)) expect(readFileSync(s.at(join(HOME, f)), 'utf8'), f).toBe(text);
    expect(JSON.parse(readFileSync(s.at(SERVICE_FILE), 'utf8'))).toEqual({ home: HOME, port }); // the install's port survives
    service = startUnit(readUnit(s.at(UNIT)), HOME, s.enter);
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
    expect(existsSync(s.at('/usr/bin/localsign'))).toBe(false);
    expect(existsSync(s.at(UNIT))).toBe(false);
    for (const [f, text] of Object.entries(kept)) expect(readFileSync(s.at(join(HOME, f)), 'utf8'), f).toBe(text);
    expect(existsSync(s.at(SERVICE_FILE))).toBe(true);

    // The enrolment from dpkg's environment (what a fleet tool passes): paired again, keys kept.
    const code = `env-${randomBytes(8).toString('hex')}`;
    const again = sh('dpkg', ['-i', inRoot(deb)], { LOCALSIGN_ENROL_PLATFORM: 'embedded', LOCALSIGN_ENROL_CODE: code });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('localsign: paired (enrolment file consumed)');
    expect(again.stdout + again.stderr).not.toContain(code);
    expect(existsSync(s.at(join(HOME, 'enrol')))).toBe(false);
    expect(readFileSync(s.at(join(HOME, 'soft-chip.json')), 'utf8')).toBe(kept['soft-chip.json']);
    for (const f of files(s.at(HOME))) expect(readFileSync(f, 'utf8'), f).not.toContain(code);

    const purged = sh('dpkg', ['-P', 'localsign']);
    expect(purged.status, purged.stderr).toBe(0);
    expect(installed()).toBe(false);
    expect(existsSync(s.at(HOME))).toBe(false);
    expect(existsSync(s.at('/etc/localsign'))).toBe(false);
    expect(sh('getent', ['passwd', 'localsign']).status).toBe(2);
    expect(sh('getent', ['group', 'localsign']).status).toBe(2);
  }, 60_000);

  it('installed with no enrolment: one line says it is not paired and how to pair, and that way pairs it; a bad LOCALSIGN_PORT is one line and changes nothing, a good one is added to a file without one', () => {
    const r = sh('dpkg', ['-i', inRoot(deb)], { LOCALSIGN_PORT: '70000' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('localsign:'))).toEqual([UNPAIRED]);
    expect(r.stderr).toContain(`localsign: LOCALSIGN_PORT=70000 is not a port (1 to 65535); ${SERVICE_FILE} is unchanged\n`);
    expect(JSON.parse(readFileSync(s.at(SERVICE_FILE), 'utf8'))).toEqual({ home: HOME, port: 8300 });
    for (const bad of ['0', '83a0', '123456']) {
      const again = sh('dpkg', ['-i', inRoot(deb)], { LOCALSIGN_PORT: bad });
      expect(again.stderr, bad).toContain(`localsign: LOCALSIGN_PORT=${bad} is not a port (1 to 65535)`);
    }
    expect(JSON.parse(readFileSync(s.at(SERVICE_FILE), 'utf8'))).toEqual({ home: HOME, port: 8300 });

    // The line's own advice, as an administrator types it: root, the service's dir found from the
    // service file, the files left to the service user.
    const init = localsign(['init', '--embedded']);
    expect(init.status, init.stderr).toBe(0);
    const uid = statSync(s.at(HOME)).uid;
    expect(statSync(s.at(join(HOME, 'pairing.json'))).uid).toBe(uid);
    // Paired now: installed again, quiet about it. The service file without a "port" (an
    // administrator took it out): LOCALSIGN_PORT adds one, the rest kept.
    writeFileSync(s.at(SERVICE_FILE), JSON.stringify({ home: HOME }, null, 2) + '\n');
    const reinstall = sh('dpkg', ['-i', inRoot(deb)], { LOCALSIGN_PORT: '8411' });
    expect(reinstall.status, reinstall.stderr).toBe(0);
    expect(reinstall.stdout).not.toContain('not paired');
    expect(JSON.parse(readFileSync(s.at(SERVICE_FILE), 'utf8'))).toEqual({ home: HOME, port: 8411 });

    expect(sh('dpkg', ['-P', 'localsign']).status).toBe(0);
  }, 120_000);

  it('this machine has the users, groups and packages it had: the package and its user lived in the scratch root only', () => {
    expect(hostChanges(host, readHostState())).toEqual([]);
    expect(readHostState().packages.filter((p) => p.startsWith('localsign:'))).toEqual([]);
  });
});
