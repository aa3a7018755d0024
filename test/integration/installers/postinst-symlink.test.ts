import { type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../../helpers/cli';
import { openScratchRoot, type ScratchRoot } from '../../helpers/scratch-root';

/**
 * Issue 15: the .deb's postinst wrote the enrolment file and chowned it through a path in
 * /var/lib/localsign, the service user's own dir, so a link that user planted there handed it
 * any root-owned file (/etc/passwd: root). Here the postinst runs as root, as dpkg runs it, in a
 * throwaway root (test/helpers/scratch-root.ts: a mount namespace of its own, a copy of /etc,
 * this machine's /usr under an overlay that adds /usr/bin/localsign, the bundle, and an empty
 * /var). useradd, the enrolment and the links touch only the copy. A link is planted as the
 * `localsign` user, at the name the postinst writes, and the link's target must keep its owner and
 * its bytes. The namespace needs root: as another user the file is skipped, and says why.
 */
const ROOT = resolve(__dirname, '../../..');
const HOME = '/var/lib/localsign';
const NOT_ROOT = process.getuid?.() !== 0;

interface Scratch extends ScratchRoot {
  /** The same as run, as the service user (setpriv: its uid, gid and groups), for what an attacker does. */
  asServiceUser(command: string[]): SpawnSyncReturns<string>;
}

function makeScratch(): Scratch {
  // The repository (the bundle) and node itself, when it does not live under /usr, read-only.
  const binds = [ROOT, ...(process.execPath.startsWith('/usr/') ? [] : [dirname(process.execPath)])];
  const root = openScratchRoot({ binds });
  writeFileSync(root.at('/usr/bin/localsign'), `#!/bin/sh\nexec ${process.execPath} ${BUNDLE} "$@"\n`, { mode: 0o755 });
  // What the package ships beside the executable: the file naming the service's dir.
  mkdirSync(root.at('/etc/localsign'), { recursive: true, mode: 0o755 });
  writeFileSync(root.at('/etc/localsign/service.json'), JSON.stringify({ home: HOME, port: 8300 }, null, 2) + '\n');
  writeFileSync(root.at('/localsign.postinst'), readFileSync(join(ROOT, 'installers/debian/postinst')), { mode: 0o755 });
  // As dpkg runs a maintainer script: a plain environment, nothing of this test runner's.
  const run = (command: string[], env: Record<string, string> = {}) =>
    root.run(command, { DPKG_MAINTSCRIPT_PACKAGE: 'localsign', DPKG_MAINTSCRIPT_NAME: 'postinst', ...env });
  return { ...root, run, asServiceUser: (command) => run(['setpriv', '--reuid=localsign', '--regid=localsign', '--init-groups', '--', ...command]) };
}

const files = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)])) : [];

describe.skipIf(NOT_ROOT)(`postinst never writes or chowns through a link the service user planted (issue 15)${NOT_ROOT ? ': skipped, its mount namespace needs root (CI runs as root)' : ''}`, () => {
  let s: Scratch;
  let uid: number;

  const postinst = (env: Record<string, string> = {}) => s.run(['/bin/sh', '/localsign.postinst', 'configure'], env);
  const fingerprint = (path: string) => {
    const st = statSync(s.at(path));
    return { uid: st.uid, gid: st.gid, mode: (st.mode & 0o7777).toString(8), text: readFileSync(s.at(path), 'utf8') };
  };
  /** The attack: as `localsign`, a link at the name postinst writes, to a file of root's. */
  const plant = (target: string) => {
    const r = s.asServiceUser(['ln', '-sfn', target, `${HOME}/enrol`]);
    expect(r.status, r.stderr).toBe(0);
    expect(lstatSync(s.at(`${HOME}/enrol`)).isSymbolicLink()).toBe(true);
    expect(lstatSync(s.at(`${HOME}/enrol`)).uid).toBe(uid);
  };
  const expectPairedAsServiceUser = (r: SpawnSyncReturns<string>, code: string) => {
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('localsign: paired (enrolment file consumed)');
    expect(r.stdout + r.stderr).not.toContain(code);
    expect(lstatSync(s.at(`${HOME}/enrol`), { throwIfNoEntry: false })).toBeUndefined();
    expect(JSON.parse(readFileSync(s.at(`${HOME}/pairing.json`), 'utf8'))).toMatchObject({ pairing: { platform: 'embedded', tenant_id: 0 } });
    for (const f of files(s.at(HOME))) {
      expect(statSync(f).uid, f).toBe(uid);
      expect(readFileSync(f, 'utf8'), f).not.toContain(code);
    }
  };

  beforeAll(() => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` (npm test does)`);
    s = makeScratch();
    // The first install: the service user and its dir, in the scratch root's /etc and /var only.
    const first = postinst();
    expect(first.status, first.stderr).toBe(0);
    const entry = readFileSync(s.at('/etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith('localsign:'));
    expect(entry, 'useradd ran in the scratch root').toBeDefined();
    uid = Number(entry!.split(':')[2]);
    expect(statSync(s.at(HOME))).toMatchObject({ uid, mode: 0o40700 });
  }, 180_000);

  afterAll(() => s?.close());

  it('LOCALSIGN_ENROL_* with a link to /etc/passwd: passwd keeps owner and bytes, the link is replaced, the machine is paired', () => {
    const before = fingerprint('etc/passwd');
    plant('/etc/passwd');
    const code = `env-${randomBytes(8).toString('hex')}`;
    const r = postinst({ LOCALSIGN_ENROL_PLATFORM: 'embedded', LOCALSIGN_ENROL_CODE: code });
    expect(fingerprint('etc/passwd')).toEqual(before);
    expect(before.uid).toBe(0);
    expectPairedAsServiceUser(r, code);
  });

  it('a preseeded /etc/localsign/enrol with a link to a root-only file: that file keeps owner, mode and bytes', () => {
    writeFileSync(s.at('etc/root-only'), 'root-only secret\n', { mode: 0o600 });
    const before = fingerprint('etc/root-only');
    plant('/etc/root-only');
    const code = `pre-${randomBytes(8).toString('hex')}`;
    writeFileSync(s.at('etc/localsign/enrol'), `PLATFORM=embedded\nCODE=${code}\n`, { mode: 0o600 });
    const r = postinst();
    expect(fingerprint('etc/root-only')).toEqual({ uid: 0, gid: 0, mode: '600', text: 'root-only secret\n' });
    expect(fingerprint('etc/root-only')).toEqual(before);
    expect(existsSync(s.at('etc/localsign/enrol'))).toBe(false);
    expectPairedAsServiceUser(r, code);
  });

  it('LOCALSIGN_ENROL_CODE_FILE: the code read from a root-only file, on no command line; a dangling link is replaced', () => {
    const code = `file-${randomBytes(8).toString('hex')}`;
    writeFileSync(s.at('etc/pairing-code'), `${code}\n`, { mode: 0o600 });
    // A link to a name that does not exist yet: followed, the write would create a file there.
    plant('/etc/created-by-localsign');
    const r = postinst({ LOCALSIGN_ENROL_PLATFORM: 'embedded', LOCALSIGN_ENROL_CODE_FILE: '/etc/pairing-code' });
    expect(existsSync(s.at('etc/created-by-localsign'))).toBe(false);
    expectPairedAsServiceUser(r, code);
    // The administrator's file is theirs to remove.
    expect(readFileSync(s.at('etc/pairing-code'), 'utf8')).toBe(`${code}\n`);
  });

  it('a LOCALSIGN_ENROL_CODE_FILE that is not a file is said, and nothing is paired from it', () => {
    const r = postinst({ LOCALSIGN_ENROL_PLATFORM: 'https://platform.example', LOCALSIGN_ENROL_CODE_FILE: '/etc/no-such-code' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('localsign: LOCALSIGN_ENROL_CODE_FILE=/etc/no-such-code is not a file; not paired');
    expect(lstatSync(s.at(`${HOME}/enrol`), { throwIfNoEntry: false })).toBeUndefined();
  });
});
