import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quoteExecArg, renderSystemdUnit } from '../../../src/install/systemd-unit';
import { tempDir } from '../../helpers/temp-dir';

/** The units of issue 9, checked by systemd's own parser (systemd-analyze verify). */
describe('systemd unit', () => {
  const dir = tempDir('localsign-unit-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function verify(text: string, user: boolean) {
    const file = join(dir, 'localsign.service');
    writeFileSync(file, text);
    // --user needs a runtime dir for its (offline) manager; any empty dir will do.
    const runtime = mkdtempSync(join(dir, 'run-'));
    return spawnSync('systemd-analyze', [...(user ? ['--user'] : []), 'verify', file], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
  }

  it('system: its own user, hardened, only the config dir writable; systemd accepts it without a warning', () => {
    const text = renderSystemdUnit({ exec: [process.execPath], scope: 'system', home: '/var/lib/localsign', user: 'localsign' });
    for (const line of ['User=localsign', 'Group=localsign', 'NoNewPrivileges=true', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/localsign', 'UMask=0077', 'KillSignal=SIGTERM', 'Restart=on-failure', 'WantedBy=multi-user.target', `ExecStart=${process.execPath} serve`]) {
      expect(text.split('\n'), line).toContain(line);
    }
    expect(text).not.toContain('MemoryDenyWriteExecute'); // V8's JIT
    const r = verify(text, false);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it("system: systemd-analyze security --offline scores it below 3 (issue 15: 7.6 EXPOSED before), with what the service needs kept", () => {
    const text = renderSystemdUnit({ exec: [process.execPath], scope: 'system', home: '/var/lib/localsign', user: 'localsign' });
    const file = join(dir, 'localsign.service');
    writeFileSync(file, text);
    const r = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', file], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const m = /Overall exposure level for localsign\.service: (\d+(?:\.\d+)?) (\S+)/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(3);
    expect(['OK', 'SAFE', 'MEDIUM']).toContain(m![2]);
    // What the service needs, which the sandbox must not take away: the network (the platform,
    // TSA, OCSP), AF_UNIX for pcscd, its config dir, USB tokens; and V8's JIT (no W^X).
    const lines = text.split('\n');
    for (const line of ['MemoryHigh=1536M', 'MemoryMax=2G', 'CapabilityBoundingSet=', 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6', 'ReadWritePaths=/var/lib/localsign', 'DeviceAllow=char-usb_device rw']) {
      expect(lines, line).toContain(line);
    }
    for (const key of ['MemoryDenyWriteExecute', 'PrivateNetwork', 'IPAddressDeny', 'PrivateDevices']) expect(text).not.toMatch(new RegExp(`^${key}=`, 'm'));
  });

  it('user: default.target, no User=, its dir and port on the command line; systemd --user accepts it', () => {
    const text = renderSystemdUnit({ exec: [process.execPath, '/opt/my app/localsign.cjs'], scope: 'user', args: ['--home', '/home/ana/.localsign', '--port', '8400'] });
    expect(text).toContain(`ExecStart=${process.execPath} "/opt/my app/localsign.cjs" serve --home /home/ana/.localsign --port 8400`);
    expect(text).toContain('WantedBy=default.target');
    expect(text).not.toMatch(/^User=/m);
    expect(text).not.toContain('ProtectSystem');
    expect(text.split('\n')).toEqual(expect.arrayContaining(['MemoryHigh=1536M', 'MemoryMax=2G']));
    const r = verify(text.replace('"/opt/my app/localsign.cjs"', '/dev/null'), true);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('quotes ExecStart words as systemd.syntax(7) reads them: spaces, quotes, backslashes, % and $', () => {
    expect(quoteExecArg('/usr/bin/localsign')).toBe('/usr/bin/localsign');
    expect(quoteExecArg('/opt/my app')).toBe('"/opt/my app"');
    expect(quoteExecArg('a"b')).toBe('"a\\"b"');
    expect(quoteExecArg('C:\\x')).toBe('"C:\\\\x"');
    expect(quoteExecArg('/data/100%')).toBe('/data/100%%');
    expect(quoteExecArg('/p/$HOME')).toBe('/p/$$HOME');
  });
});
