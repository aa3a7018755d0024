import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openScratchRoot, type ScratchRoot } from '../helpers/scratch-root';

/**
 * What the .pkg's scripts do (the package test checks they are these files), run by /bin/sh as
 * installd runs them (as root, preinstall then postinstall), in a throwaway root
 * (test/helpers/scratch-root.ts). The macOS executable and launchctl cannot run on Linux: at their
 * paths stand two shell scripts that record how they were called (and what the enrolment file held
 * when `enrol` read it); that `localsign service install`, `enrol` and `service uninstall` do what
 * they say is tested with the CLI elsewhere (test/unit/install/, test/integration/cli/). So this
 * checks the scripts' own logic: the port's sources and checks, the enrolment file's path and
 * mode, the order of the steps, keep-data and purge on removal.
 */
const ROOT = resolve(__dirname, '../..');
const NOT_ROOT = process.getuid?.() !== 0;
const DATA = '/Library/Application Support/localsign';
const EXE = '/usr/local/lib/localsign/localsign';

const STAND_IN = `#!/bin/sh
echo "localsign $*" >>/tmp/calls
if [ "$1 $2" = "service install" ]; then mkdir -p -m 700 "${DATA}"; fi
if [ "$1" = enrol ]; then stat -c %a "$3" >/tmp/enrol-mode; cat "$3" >/tmp/enrol-seen; [ -z "$FAIL_ENROL" ] || exit 1; rm -f "$3"; fi
exit 0
`;
const LAUNCHCTL = `#!/bin/sh
echo "launchctl $*" >>/tmp/calls
exit 0
`;

describe.skipIf(NOT_ROOT)(`the .pkg's scripts under /bin/sh${NOT_ROOT ? ': skipped, the throwaway root needs root (CI runs as root)' : ''}`, () => {
  let s: ScratchRoot;
  const put = (path: string, text: string, mode: number) => {
    mkdirSync(s.at(path.slice(0, path.lastIndexOf('/')) || '/'), { recursive: true });
    writeFileSync(s.at(path), text);
    chmodSync(s.at(path), mode);
  };
  const calls = () => (existsSync(s.at('/tmp/calls')) ? readFileSync(s.at('/tmp/calls'), 'utf8').trim().split('\n') : []);
  const script = (name: string, env: Record<string, string> = {}) => s.run(['/bin/sh', `/tmp/scripts/${name}`, '/tmp/localsign.pkg', '/', '/', '/'], env);

  beforeAll(() => {
    s = openScratchRoot();
    mkdirSync(s.at('/tmp/scripts'));
    for (const name of ['preinstall', 'postinstall']) copyFileSync(join(ROOT, 'installers', 'macos', 'scripts', name), s.at(`/tmp/scripts/${name}`));
    copyFileSync(join(ROOT, 'installers', 'macos', 'uninstall.sh'), s.at('/tmp/scripts/uninstall'));
  }, 120_000);
  afterAll(() => s?.close());
  beforeEach(() => {
    s.run(['rm', '-rf', '/tmp/calls', '/tmp/enrol-seen', '/tmp/enrol-mode', '/Library', '/etc/localsign', '/usr/local/lib/localsign', '/usr/local/bin/localsign']);
    put(EXE, STAND_IN, 0o755);
    put('/bin/launchctl', LAUNCHCTL, 0o755);
  });

  it('preinstall stops a running daemon (an upgrade), and succeeds when there is none', () => {
    expect(script('preinstall').status).toBe(0);
    expect(calls()).toEqual(['launchctl bootout system/com.localsign.service']);
  });

  it('postinstall without an enrolment: the data dir and service file, then the daemon loaded', () => {
    const r = script('postinstall');
    expect(r.status, r.stderr).toBe(0);
    expect(calls()).toEqual(['localsign service install --no-register', 'localsign service install']);
  });

  it('an enrolment dropped by the MDM: PORT taken out for the service file, the rest in a 0600 file of the data dir, read by enrol, both files gone', () => {
    put('/etc/localsign/enrol', 'PLATFORM=https://platform.example\nCODE=K7-99X\nport = 8301\n', 0o600);
    const r = script('postinstall');
    expect(r.status, r.stderr).toBe(0);
    expect(calls()).toEqual(['localsign service install --no-register --port 8301', `localsign enrol --file ${DATA}/enrol`, 'localsign service install']);
    expect(readFileSync(s.at('/tmp/enrol-seen'), 'utf8')).toBe('PLATFORM=https://platform.example\nCODE=K7-99X\n');
    expect(readFileSync(s.at('/tmp/enrol-mode'), 'utf8').trim()).toBe('600');
    expect(existsSync(s.at('/etc/localsign/enrol'))).toBe(false);
    expect(r.stdout).toContain('localsign: paired');
    expect(r.stdout + r.stderr).not.toContain('K7-99X');
  });

  it('LOCALSIGN_PORT in the environment wins; a file with only PORT runs no enrol', () => {
    put('/etc/localsign/enrol', 'PORT=8301\n', 0o600);
    const r = script('postinstall', { LOCALSIGN_PORT: '8400' });
    expect(r.status, r.stderr).toBe(0);
    expect(calls()).toEqual(['localsign service install --no-register --port 8400', 'localsign service install']);
    expect(existsSync(s.at(`${DATA}/enrol`))).toBe(false);
  });

  it.each(['0', '65536', '80a', '08080'])('PORT=%s is refused in one line and the port is left as installed', (port) => {
    put('/etc/localsign/enrol', `PORT=${port}\n`, 0o600);
    const r = script('postinstall');
    expect(r.status).toBe(0);
    expect(r.stderr.trim()).toBe(`localsign: PORT=${port} is not a port (1 to 65535); the port is unchanged`);
    expect(calls()[0]).toBe('localsign service install --no-register');
  });

  it('a failed enrolment keeps the file and says how to retry; the service is loaded all the same', () => {
    put('/etc/localsign/enrol', 'PLATFORM=https://platform.example\nCODE=K7-99X\n', 0o600);
    const r = script('postinstall', { FAIL_ENROL: '1' });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`localsign: enrolment failed; ${DATA}/enrol is kept, retry with: sudo localsign enrol --file "${DATA}/enrol"`);
    expect(statSync(s.at(`${DATA}/enrol`)).mode & 0o777).toBe(0o600);
    expect(calls().at(-1)).toBe('localsign service install');
  });

  it('uninstall keeps the data; --purge deletes it and the logs; anything else is a usage line', () => {
    put('/usr/local/bin/localsign', '', 0o644);
    put('/Library/Logs/localsign/stderr.log', 'x', 0o644);
    let r = s.run(['/bin/sh', '/tmp/scripts/uninstall']);
    expect(r.status, r.stderr).toBe(0);
    expect(calls()).toEqual(['localsign service uninstall']);
    expect(existsSync(s.at('/usr/local/lib/localsign'))).toBe(false);
    expect(existsSync(s.at('/usr/local/bin/localsign'))).toBe(false);
    expect(existsSync(s.at('/Library/Logs/localsign/stderr.log'))).toBe(true);

    put(EXE, STAND_IN, 0o755);
    r = s.run(['/bin/sh', '/tmp/scripts/uninstall', '--purge']);
    expect(r.status, r.stderr).toBe(0);
    expect(calls().at(-1)).toBe('localsign service uninstall --purge');
    expect(existsSync(s.at('/Library/Logs/localsign'))).toBe(false);

    r = s.run(['/bin/sh', '/tmp/scripts/uninstall', '--keep']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('usage: sudo /usr/local/lib/localsign/uninstall [--purge]');
  });
});
