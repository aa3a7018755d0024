import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../../helpers/cli';

/**
 * Issue 15: the .deb's postinst wrote the enrolment file and chowned it through a path in
 * /var/lib/localsign, the service user's own dir, so a link that user planted there handed it
 * any root-owned file (/etc/passwd: root). Here the postinst runs as root, as dpkg runs it, in a
 * scratch root: a mount namespace of its own (unshare(1); private propagation, so nothing is
 * mounted on this machine) and chroot(1) into a copy of /etc, this machine's /usr under an
 * overlay that adds /usr/bin/localsign (the bundle), and an empty /var. useradd, the enrolment
 * and the links touch only the copy. A link is planted as the `localsign` user, at the name the
 * postinst writes, and the link's target must keep its owner and its bytes.
 */
const ROOT = resolve(__dirname, '../../..');
const HOME = '/var/lib/localsign';
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface Scratch {
  dir: string;
  root: string;
  /** A path inside the scratch root, as this machine sees it. */
  at(path: string): string;
  /** Runs a command chrooted into the scratch root, as root, in a mount namespace of its own. */
  run(command: string[], env?: Record<string, string>): SpawnSyncReturns<string>;
  /** The same, as the service user (setpriv: its uid, gid and groups), for what an attacker does. */
  asServiceUser(command: string[]): SpawnSyncReturns<string>;
}

/** What the namespace mounts before chroot: each a private mount, gone when the process ends. */
const ENTER = `set -e
S=$1; R=$S/root; shift
mount -t tmpfs -o mode=0755 tmpfs "$S/layer"
mkdir "$S/layer/up" "$S/layer/work"
mount -t overlay overlay -o "lowerdir=/usr,upperdir=$S/layer/up,workdir=$S/layer/work" "$R/usr"
printf '#!/bin/sh\\nexec %s %s "$@"\\n' "$NODE" "$BUNDLE" >"$R/usr/bin/localsign"
chmod 755 "$R/usr/bin/localsign"
for d in $BINDS; do mount --bind -o ro "$d" "$R$d"; done
mount --bind /dev "$R/dev"
mount -t proc proc "$R/proc"
exec chroot "$R" "$@"
`;

function makeScratch(): Scratch {
  const dir = mkdtempSync(join(tmpdir(), 'localsign-postinst-'));
  const root = join(dir, 'root');
  const at = (path: string) => join(root, path);
  mkdirSync(join(dir, 'layer'));
  for (const d of ['usr', 'dev', 'proc', 'run', 'var/lib', 'var/log']) mkdirSync(at(d), { recursive: true, mode: 0o755 });
  mkdirSync(at('tmp'));
  chmodSync(at('tmp'), 0o1777);
  // A merged /usr (Debian 12) has /bin -> usr/bin and so on: the same links here. A split one
  // gets the host's dirs mounted read-only instead.
  const binds = [ROOT];
  for (const top of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const st = lstatSync(`/${top}`, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) symlinkSync(readlinkSync(`/${top}`), at(top));
    else if (st?.isDirectory()) binds.push(`/${top}`);
  }
  // node itself, when it does not live under /usr.
  if (!process.execPath.startsWith('/usr/')) binds.push(dirname(process.execPath));
  for (const b of binds) mkdirSync(at(b), { recursive: true });
  // /etc: this machine's, copied (passwd, PAM, login.defs, nsswitch…), so useradd edits the copy.
  cpSync('/etc', at('etc'), { recursive: true, verbatimSymlinks: true, dereference: false });
  // What the package ships beside the executable: the file naming the service's dir.
  mkdirSync(at('etc/localsign'), { recursive: true, mode: 0o755 });
  writeFileSync(at('etc/localsign/service.json'), JSON.stringify({ home: HOME, port: 8300 }, null, 2) + '\n');
  writeFileSync(at('localsign.postinst'), readFileSync(join(ROOT, 'installers/debian/postinst')), { mode: 0o755 });

  const run = (command: string[], env: Record<string, string> = {}) =>
    spawnSync('unshare', ['--mount', '--propagation', 'private', '--fork', '--', 'sh', '-c', ENTER, 'enter', dir, ...command], {
      encoding: 'utf8',
      timeout: 120_000,
      // As dpkg runs a maintainer script: a plain environment, nothing of this test runner's.
      env: { PATH, LANG: 'C.UTF-8', DPKG_MAINTSCRIPT_PACKAGE: 'localsign', DPKG_MAINTSCRIPT_NAME: 'postinst', NODE: process.execPath, BUNDLE, BINDS: binds.join(' '), ...env },
    });
  return {
    dir,
    root,
    at,
    run,
    asServiceUser: (command) => run(['setpriv', '--reuid=localsign', '--regid=localsign', '--init-groups', '--', ...command]),
  };
}

/** Mounts still under `dir` (none once the namespaces have ended): never delete through one. */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4] ?? '').filter((m) => m.startsWith(dir));
}

const files = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)])) : [];

describe('postinst never writes or chowns through a link the service user planted (issue 15)', () => {
  let s: Scratch;
  let uid: number;

  const postinst = (env: Record<string, string> = {}) => {
    const r = s.run(['/bin/sh', '/localsign.postinst', 'configure'], env);
    expect(mountsUnder(s.dir), 'the namespace took its mounts with it').toEqual([]);
    return r;
  };
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
    if (process.getuid?.() !== 0) throw new Error('the postinst runs as root, as dpkg runs it (in a scratch root of its own): run this test as root (CI does)');
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` (npm test does)`);
    s = makeScratch();
    // The first install: the service user and its dir, in the scratch root's /etc and /var only.
    const first = postinst();
    expect(first.status, first.stderr).toBe(0);
    const entry = readFileSync(s.at('etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith('localsign:'));
    expect(entry, 'useradd ran in the scratch root').toBeDefined();
    uid = Number(entry!.split(':')[2]);
    expect(statSync(s.at(HOME))).toMatchObject({ uid, mode: 0o40700 });
  }, 180_000);

  afterAll(() => {
    if (!s) return;
    const left = mountsUnder(s.dir);
    if (left.length) throw new Error(`still mounted, ${s.dir} is left in place: ${left.join(', ')}`);
    rmSync(s.dir, { recursive: true, force: true });
  });

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
