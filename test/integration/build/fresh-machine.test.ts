import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PACKAGES } from '../../../build/test-deps.mjs';
import { hostChanges, readHostState } from '../../helpers/host-state';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Issue 19: on a machine prepared from the README, a missing tool made 127 tests fail one by one
 * ("expected null to be +0", naming no tool), and `npm test` installed a package and created a user.
 * Here: the check the run starts with (build/test-deps.mjs, test/global-setup.ts), run as a child
 * with a PATH that lacks pdfsig; and the comparison the run ends with, shown to catch what the old
 * .deb test did, on a copy of this machine's user and package lists.
 */
const ROOT = resolve(__dirname, '../../..');
const LINE = 'missing tool: pdfsig (apt package poppler-utils); run npm run test:fresh';

describe('a missing tool stops the run at once, in one line naming the tool and its package', () => {
  let work: string;
  let path: string;

  beforeAll(() => {
    // A PATH holding every command of the list but pdfsig, each linked from where it is installed.
    work = tempDir('localsign-test-deps-');
    const bin = join(work, 'bin');
    mkdirSync(bin);
    const commands = TEST_PACKAGES.filter((p) => p.suite === 'test').flatMap((p) => p.provides.filter((t) => !t.startsWith('/')));
    for (const c of commands.filter((c) => c !== 'pdfsig')) {
      symlinkSync(execFileSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8', env: { PATH: `${process.env.PATH}:/usr/sbin:/sbin` } }).trim(), join(bin, c));
    }
    path = bin;
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('the full PATH has every tool: the check passes', () => {
    const r = spawnSync(process.execPath, ['build/test-deps.mjs', 'check', 'test'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('node build/test-deps.mjs check: exit 1 and the one line', () => {
    const r = spawnSync(process.execPath, ['build/test-deps.mjs', 'check', 'test'], { cwd: ROOT, encoding: 'utf8', env: { PATH: path } });
    expect({ status: r.status, stderr: r.stderr, stdout: r.stdout }).toEqual({ status: 1, stderr: `${LINE}\n`, stdout: '' });
  });

  it('vitest (the globalSetup): the same line, and no test runs', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/unit/config/loopback.test.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      // Its own temp dir (vitest's, left behind by the exit the check makes) inside this test's.
      env: { PATH: path, NO_COLOR: '1', CI: '1', TMPDIR: work },
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(LINE);
    expect(r.stdout).not.toMatch(/Test Files|passed|failed/);
  }, 60_000);
});

describe("the run's end compares users, groups and packages", () => {
  let copy: string;

  beforeAll(() => {
    // This machine's lists, copied: what a test that installs the .deb here would have changed.
    copy = tempDir('localsign-host-state-');
    mkdirSync(join(copy, 'etc'));
    mkdirSync(join(copy, 'var/lib/dpkg/info'), { recursive: true });
    for (const f of ['etc/passwd', 'etc/group', 'var/lib/dpkg/status']) copyFileSync(join('/', f), join(copy, f));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('a copy as it was: no change; what the old .deb test left (a user, a group, a package): each named', () => {
    const before = readHostState(copy);
    expect(before.users).toContainEqual(expect.stringMatching(/^root:0:0:/));
    expect(before.packages).toContainEqual(expect.stringMatching(/^dpkg:\S+ \S+ ii$/));
    expect(hostChanges(before, readHostState(copy))).toEqual([]);

    appendFileSync(join(copy, 'etc/passwd'), 'localsign:x:998:998:localsign signing service:/var/lib/localsign:/usr/sbin/nologin\n');
    appendFileSync(join(copy, 'etc/group'), 'localsign:x:998:\n');
    appendFileSync(join(copy, 'var/lib/dpkg/status'), '\nPackage: localsign\nStatus: install ok installed\nPriority: optional\nSection: utils\nMaintainer: x <x@example.org>\nArchitecture: amd64\nVersion: 0.2.0\nDescription: x\n');
    expect(hostChanges(before, readHostState(copy))).toEqual([
      'user localsign added: localsign:998:998:/var/lib/localsign:/usr/sbin/nologin',
      'group localsign added: localsign:998',
      'package localsign:amd64 added: localsign:amd64 0.2.0 ii',
    ]);
  });

  it('a changed entry and a removed one are named too', () => {
    const before = { users: ['a:1:1:/h:/bin/sh', 'b:2:2:/h:/bin/sh'], groups: [], packages: ['p:amd64 1.0 ii'] };
    const after = { users: ['a:1:1:/h:/usr/sbin/nologin'], groups: [], packages: ['p:amd64 1.1 ii'] };
    expect(hostChanges(before, after)).toEqual([
      'user a changed: a:1:1:/h:/bin/sh -> a:1:1:/h:/usr/sbin/nologin',
      'user b removed: b:2:2:/h:/bin/sh',
      'package p:amd64 changed: p:amd64 1.0 ii -> p:amd64 1.1 ii',
    ]);
  });
});
