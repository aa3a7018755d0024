import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE, type CliResult } from '../../helpers/cli';
import { readUnit, startUnit, waitForHealth, type UnitProcess } from '../../helpers/systemd-unit-run';
import { freePort } from '../../windows/wine';
import { expectOneLineFailure } from './_cli-expect';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Issue 9: `localsign service …` and `enrol` as a user runs them: no LOCALSIGN_HOME, HOME of its
 * own, and LOCALSIGN_SERVICE_FILE pointing at a file of the test (or nowhere), so a system
 * service installed on this machine (the .deb test) cannot leak in. systemd is not PID 1 here and
 * refuses a --user manager, so `systemctl --user` fails for real: install writes the unit and
 * says so, the test runs the unit's ExecStart as systemd would, and status sees it healthy.
 */
const root = tempDir('localsign-svccmd-');
const userHome = join(root, 'home');
mkdirSync(userHome);
function cli(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LOCALSIGN_')));
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { env: { ...base, HOME: userHome, NO_COLOR: '1', LOCALSIGN_SERVICE_FILE: '', ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('localsign service (systemd --user) and enrol', () => {
  let unit: UnitProcess | undefined;
  afterAll(async () => {
    await unit?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('install --user writes the unit (systemd absent: said, exit 0), status sees it healthy once started as the unit would, uninstall keeps data, --purge deletes it', async () => {
    const port = await freePort();
    const installed = cli(['service', 'install', '--user', '--port', String(port), '--json']);
    expect(installed.status, installed.stderr).toBe(0);
    const unitPath = join(userHome, '.config', 'systemd', 'user', 'localsign.service');
    const out = JSON.parse(installed.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ installed: true, started: false, scope: 'user', port, config_dir: join(userHome, '.localsign'), definition: unitPath, service_file: null });
    expect(String(out.note)).toMatch(/^systemd is not running for this user session \(.+\): .+localsign\.service is written; it is enabled when systemd runs \(systemctl --user enable --now localsign\)$/);
    const spec = readUnit(unitPath);
    expect(spec.execStart).toEqual([process.execPath, BUNDLE, 'serve', '--home', join(userHome, '.localsign'), '--port', String(port)]);
    const verify = spawnSync('systemd-analyze', ['--user', 'verify', unitPath], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: mkdtempSync(join(root, 'run-')) } });
    expect(verify.status, verify.stderr).toBe(0);

    // Installing again (the port now read back from the unit) writes the same unit (idempotent).
    const first = readFileSync(unitPath, 'utf8');
    const again = cli(['service', 'install', '--user', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ installed: true, port });
    expect(readFileSync(unitPath, 'utf8')).toBe(first);

    const down = cli(['service', 'status', '--user', '--json']);
    expect(down.status).toBe(3); // installed, not answering: 3, as every command that finds no service
    expect(JSON.parse(down.stdout)).toMatchObject({ installed: true, running: null, healthy: false, port });

    unit = startUnit({ ...spec, user: null }, userHome);
    await waitForHealth(port, unit);
    const up = cli(['service', 'status', '--user', '--json']);
    expect(up.status, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ manager: 'systemd', scope: 'user', installed: true, running: null, healthy: true, port, config_dir: join(userHome, '.localsign'), version: '0.2.0' });
    expect(cli(['service', 'status', '--user']).stdout).toContain(`installed=yes running=unknown healthy=yes port=${port}`);
    expect(await unit.stop()).toBe(0);

    const removed = cli(['service', 'uninstall', '--user', '--json']);
    expect(JSON.parse(removed.stdout)).toMatchObject({ removed: true, purged: false });
    expect(existsSync(unitPath)).toBe(false);
    expect(existsSync(join(userHome, '.localsign', 'requests.jsonl'))).toBe(true);
    expect(JSON.parse(cli(['service', 'uninstall', '--user', '--purge', '--json']).stdout)).toMatchObject({ removed: false, purged: true });
    expect(existsSync(join(userHome, '.localsign'))).toBe(false);
  }, 60_000);

  it('a system install by a user who is not root: one line saying to use sudo or --user', async () => {
    if (process.getuid?.() !== 0) {
      expect(expectOneLineFailure(cli(['service', 'install']))).toMatch(/^a system service is installed by root/);
      return;
    }
    const r = spawnSync('setpriv', ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, BUNDLE, 'service', 'install'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', NO_COLOR: '1', LOCALSIGN_SERVICE_FILE: '' } });
    expect(expectOneLineFailure({ status: r.status, stdout: r.stdout, stderr: r.stderr })).toBe('a system service is installed by root: run `sudo localsign service …`, or add --user for a service of your own');
  });

  it("the CLI uses the installed service's dir and port with no flag, and a user who cannot read it gets one line", () => {
    const serviceHome = join(root, 'service-home');
    mkdirSync(serviceHome, { mode: 0o700 });
    const serviceFile = join(root, 'service.json');
    writeFileSync(serviceFile, JSON.stringify({ home: serviceHome, port: 18399 }));
    const status = cli(['status', '--json'], { LOCALSIGN_SERVICE_FILE: serviceFile });
    expect(status.status).toBe(3); // nothing listens: 3, as `sign` says it
    expect(JSON.parse(status.stdout)).toMatchObject({ reachable: false, url: 'http://127.0.0.1:18399/health', config_dir: serviceHome });
    const init = cli(['init', '--embedded', '--json'], { LOCALSIGN_SERVICE_FILE: serviceFile });
    expect(JSON.parse(init.stdout)).toMatchObject({ paired: true, config_dir: serviceHome });

    if (process.getuid?.() === 0) {
      // As on a real machine: /etc/localsign/service.json readable by all, the service's dir 0700.
      chmodSync(root, 0o755);
      chmodSync(serviceFile, 0o644);
      const r = spawnSync('setpriv', ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, BUNDLE, 'wrapper:list'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', NO_COLOR: '1', LOCALSIGN_SERVICE_FILE: serviceFile } });
      expect(expectOneLineFailure({ status: r.status, stdout: r.stdout, stderr: r.stderr })).toBe(
        `this user cannot use the config dir ${serviceHome}: run the command as an administrator (sudo localsign …), or pass --home DIR (or LOCALSIGN_HOME) for a dir of your own`,
      );
    }
  });

  it('enrol pairs from a file and deletes it; a failed enrolment keeps the file and never prints the code', () => {
    const home = join(root, 'enrolled');
    const file = join(root, 'enrol');
    writeFileSync(file, 'PLATFORM=embedded\n', { mode: 0o600 });
    const ok = cli(['enrol', '--file', file, '--json'], { LOCALSIGN_HOME: home });
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ paired: true, platform: 'embedded', config_dir: home });
    expect(existsSync(file)).toBe(false);

    const code = 'Z9-SECRET-CODE-41';
    writeFileSync(file, `PLATFORM=https://platform.invalid\nCODE=${code}\n`, { mode: 0o600 });
    const bad = cli(['enrol', '--file', file], { LOCALSIGN_HOME: join(root, 'unpaired') });
    const line = expectOneLineFailure(bad);
    expect(line).toMatch(new RegExp(`^enrolment failed, ${file} is kept for the next try \\(localsign enrol --file ${file}\\): .+`));
    expect(bad.stdout + bad.stderr).not.toContain(code);
    expect(readFileSync(file, 'utf8')).toContain(code);
  });
});
