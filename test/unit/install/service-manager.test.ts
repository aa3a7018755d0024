import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandResult, Runner } from '../../../src/install/run-command';
import { installService, serviceStatus, stopInstalled, uninstallService, type ManagerDeps } from '../../../src/install/service-manager';
import { planService, systemHome } from '../../../src/install/service-plan';
import { tempDir } from '../../helpers/temp-dir';

/** A service manager that answers as told, and remembers what it was asked (systemctl, launchctl, sc). */
function recorder(answer: (cmd: string, args: readonly string[]) => Partial<CommandResult> = () => ({})) {
  const calls: string[] = [];
  const run: Runner = (cmd, args) => {
    calls.push([cmd, ...args].join(' '));
    return { code: 0, stdout: '', stderr: '', ...answer(cmd, args) };
  };
  return { calls, run };
}

const deps = (run: Runner, uid: number | null = 1000, healthy = false): ManagerDeps => ({ run, uid, health: async () => (healthy ? { ok: true, version: '0.2.0', paired: true } : null) });

describe('service plans and managers (the OS tools recorded; their real runs: the .deb and wine tests)', () => {
  const userHome = tempDir('localsign-svc-');
  afterAll(() => rmSync(userHome, { recursive: true, force: true }));
  const exec = ['/usr/bin/node', '/opt/localsign/dist/localsign.cjs'];

  it('has one system config dir per OS', () => {
    expect(systemHome('linux')).toBe('/var/lib/localsign');
    expect(systemHome('darwin')).toBe('/Library/Application Support/localsign');
    expect(systemHome('win32', 'D:\\ProgramData')).toBe('D:\\ProgramData\\localsign');
    const win = planService({ platform: 'win32', scope: 'system', exec: ['C:\\Program Files\\localsign\\localsign.exe'], port: 8300, userHome: 'C:\\Users\\a', programData: 'C:\\ProgramData', serviceFilePath: 'C:\\ProgramData\\localsign\\service.json' });
    expect(win).toMatchObject({ manager: 'windows', name: 'localsign', home: 'C:\\ProgramData\\localsign', definitionPath: null, serviceFile: { content: { home: 'C:\\ProgramData\\localsign', port: 8300 } } });
    expect(() => planService({ platform: 'win32', scope: 'user', exec: ['C:\\x.exe'], port: 8300, userHome: 'C:\\Users\\a', serviceFilePath: null })).toThrow('a Windows service is machine-wide');
    const mac = planService({ platform: 'darwin', scope: 'system', exec: ['/usr/local/lib/localsign/localsign'], port: 8300, userHome: '/Users/a', serviceFilePath: '/etc/localsign/service.json' });
    expect(mac).toMatchObject({ manager: 'launchd', name: 'com.localsign.service', definitionPath: '/Library/LaunchDaemons/com.localsign.service.plist', home: '/Library/Application Support/localsign' });
    expect(() => planService({ platform: 'linux', scope: 'system', exec: ['localsign'], port: 8300, userHome: '/h', serviceFilePath: null })).toThrow('the service needs an absolute path to the executable');
  });

  it('systemd --user: writes the unit, enables and starts it; installed again unchanged it does not restart', async () => {
    const plan = planService({ platform: 'linux', scope: 'user', exec, port: 8411, userHome, serviceFilePath: '/etc/localsign/service.json' });
    expect(plan.serviceFile).toBe(null); // a user service names its dir on its command line
    const sd = recorder((cmd, args) => (args.includes('is-active') ? { code: 3, stdout: 'inactive\n' } : {}));
    expect(await installService(plan, deps(sd.run), { start: true })).toEqual({ installed: true, started: true });
    expect(sd.calls).toEqual(['systemctl --user is-active localsign', 'systemctl --user daemon-reload', 'systemctl --user enable localsign', 'systemctl --user daemon-reload', 'systemctl --user start localsign']);
    expect(readFileSync(join(userHome, '.config/systemd/user/localsign.service'), 'utf8')).toBe(plan.definition);
    expect(statSync(join(userHome, '.localsign')).mode & 0o777).toBe(0o700);

    const running = recorder((cmd, args) => (args.includes('is-active') ? { stdout: 'active\n' } : {}));
    await installService(plan, deps(running.run), { start: true });
    expect(running.calls.at(-1)).toBe('systemctl --user start localsign');
    const changed = planService({ platform: 'linux', scope: 'user', exec, port: 8412, userHome, serviceFilePath: null });
    await installService(changed, deps(running.run), { start: true });
    expect(running.calls.at(-1)).toBe('systemctl --user restart localsign');
  });

  it('systemd not running (a container): the unit is written and the install says so; status says running unknown', async () => {
    const plan = planService({ platform: 'linux', scope: 'user', exec, port: 8411, userHome, serviceFilePath: null });
    const none = recorder(() => ({ code: 1, stderr: 'Failed to connect to bus: No medium found\n' }));
    const result = await installService(plan, deps(none.run), { start: true });
    expect(result).toEqual({ installed: true, started: false, note: `systemd is not running for this user session (Failed to connect to bus: No medium found): ${plan.definitionPath} is written; it is enabled when systemd runs (systemctl --user enable --now localsign)` });
    expect(await serviceStatus(plan, deps(none.run, 1000, true))).toMatchObject({ installed: true, running: null, healthy: true, port: 8411, version: '0.2.0' });
    expect(() => stopInstalled(plan, deps(none.run))).toThrow('systemd is not running here: there is no systemd service to stop');
  });

  it('uninstall keeps the config dir unless --purge', async () => {
    const plan = planService({ platform: 'linux', scope: 'user', exec, port: 8411, userHome, serviceFilePath: null });
    const sd = recorder();
    expect(await uninstallService(plan, deps(sd.run), { purge: false })).toEqual({ removed: true, purged: false });
    expect(sd.calls).toContain('systemctl --user disable --now localsign');
    expect(existsSync(plan.definitionPath!)).toBe(false);
    expect(existsSync(plan.home)).toBe(true);
    expect(await uninstallService(plan, deps(sd.run), { purge: true })).toEqual({ removed: false, purged: true });
    expect(existsSync(plan.home)).toBe(false);
  });

  it('register: false (the MSI registers the service itself): the config dir only, no call to the service manager', async () => {
    const plan = planService({ platform: 'linux', scope: 'user', exec, port: 8411, userHome, serviceFilePath: null });
    rmSync(plan.definitionPath!, { force: true });
    const sd = recorder();
    expect(await installService(plan, deps(sd.run), { start: true, register: false })).toEqual({ installed: true, started: false });
    expect(sd.calls).toEqual([]);
    expect(statSync(plan.home).mode & 0o777).toBe(0o700);
    expect(existsSync(plan.definitionPath!)).toBe(false);
  });

  it('a system service needs root; launchd: bootstrap into system/, stop with SIGTERM', async () => {
    const plan = planService({ platform: 'linux', scope: 'system', exec, port: 8300, userHome, serviceFilePath: join(userHome, 's.json') });
    await expect(installService(plan, deps(recorder().run, 1000), { start: true })).rejects.toThrow('a system service is installed by root: run `sudo localsign service …`, or add --user for a service of your own');
    const mac = planService({ platform: 'darwin', scope: 'user', exec, port: 8300, userHome, serviceFilePath: null });
    const ld = recorder((cmd, args) => (args[0] === 'print' ? { code: 113 } : {}));
    await installService(mac, deps(ld.run, 501), { start: true });
    expect(ld.calls).toEqual(['launchctl print gui/501/com.localsign.service', 'launchctl print gui/501/com.localsign.service', 'launchctl enable gui/501/com.localsign.service', `launchctl bootstrap gui/501 ${mac.definitionPath}`, 'launchctl kickstart gui/501/com.localsign.service']);
    stopInstalled(mac, deps(ld.run, 501));
    expect(ld.calls.at(-1)).toBe('launchctl kill SIGTERM gui/501/com.localsign.service');
  });
});
