import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quoteExecArg, renderSystemdUnit } from '../../../src/install/systemd-unit';

/** The units of issue 9, checked by systemd's own parser (systemd-analyze verify). */
describe('systemd unit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'localsign-unit-'));
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

  it('user: default.target, no User=, its dir and port on the command line; systemd --user accepts it', () => {
    const text = renderSystemdUnit({ exec: [process.execPath, '/opt/my app/localsign.cjs'], scope: 'user', args: ['--home', '/home/ana/.localsign', '--port', '8400'] });
    expect(text).toContain(`ExecStart=${process.execPath} "/opt/my app/localsign.cjs" serve --home /home/ana/.localsign --port 8400`);
    expect(text).toContain('WantedBy=default.target');
    expect(text).not.toMatch(/^User=/m);
    expect(text).not.toContain('ProtectSystem');
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
