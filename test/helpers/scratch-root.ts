import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, closeSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

/**
 * A throwaway root for the installer tests (issue 19: the .deb test ran `dpkg -i` on this machine
 * and created a system user). One process holds a mount namespace of its own (unshare(1), private
 * propagation: nothing is mounted on this machine) and is chrooted into a scratch tree: a copy of
 * /etc (passwd, PAM, login.defs… so useradd edits the copy), this machine's /usr under an overlay
 * whose upper layer is a tmpfs of the namespace (dpkg unpacks into it; the host's /usr is only
 * read), an empty /var with, on request, a copy of dpkg's database, /dev bound and /proc mounted.
 * Commands enter it with nsenter(1) (its mount namespace and its root), so several dpkg runs, the
 * service and the test's own reads see one root until `close()`. Needs root, as mounting does.
 */
export interface ScratchRoot {
  /** The scratch dir on this machine (the tree, the holder's log). */
  dir: string;
  /** A path inside the root, as this process reads it (through the holder's /proc/PID/root). */
  at(path: string): string;
  /** Runs a command in the root as root, with a plain environment (PATH, LANG and `env`). */
  run(command: string[], env?: Record<string, string>): SpawnSyncReturns<string>;
  /** The words that start a long-running process in the root (for spawn). */
  enter: string[];
  /** Ends the holder, so the namespace and its mounts go, then deletes the tree. */
  close(): void;
}

export const ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Mounts, then becomes the holder: chrooted, it writes its pid for nsenter and sleeps. */
const HOLD = `set -e
S=$1; R=$S/root
mount -t tmpfs -o mode=0755 tmpfs "$S/layer"
mkdir "$S/layer/up" "$S/layer/work"
mount -t overlay overlay -o "lowerdir=/usr,upperdir=$S/layer/up,workdir=$S/layer/work" "$R/usr"
for d in $BINDS; do mount --bind -o ro "$d" "$R$d"; done
mount --bind /dev "$R/dev"
mount -t proc proc "$R/proc"
exec chroot "$R" /bin/sh -c 'echo $$ >/.holder.tmp && mv /.holder.tmp /.holder && exec sleep infinity'
`;

export function openScratchRoot(options: { dpkg?: boolean; binds?: string[] } = {}): ScratchRoot {
  if (process.getuid?.() !== 0) throw new Error('a scratch root mounts in a namespace of its own: it needs root');
  const dir = tempDir('localsign-root-');
  const root = join(dir, 'root');
  mkdirSync(join(dir, 'layer'));
  for (const d of ['usr', 'dev', 'proc', 'run', 'var/lib', 'var/log', 'var/cache']) mkdirSync(join(root, d), { recursive: true, mode: 0o755 });
  mkdirSync(join(root, 'tmp'));
  chmodSync(join(root, 'tmp'), 0o1777);
  // A merged /usr (Debian 12) has /bin -> usr/bin and so on: the same links here. A split one
  // gets the host's dirs mounted read-only instead.
  const binds = [...(options.binds ?? [])];
  for (const top of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const st = lstatSync(`/${top}`, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) symlinkSync(readlinkSync(`/${top}`), join(root, top));
    else if (st?.isDirectory()) binds.push(`/${top}`);
  }
  for (const b of binds) mkdirSync(join(root, b), { recursive: true });
  cpSync('/etc', join(root, 'etc'), { recursive: true, verbatimSymlinks: true, dereference: false });
  // dpkg's database as this machine has it, so the package's Depends are met as they are here.
  if (options.dpkg) cpSync('/var/lib/dpkg', join(root, 'var/lib/dpkg'), { recursive: true, verbatimSymlinks: true });

  const log = openSync(join(dir, 'holder.log'), 'a');
  const holder = spawn('unshare', ['--mount', '--propagation', 'private', '--fork', '--', 'sh', '-c', HOLD, 'hold', dir], {
    stdio: ['ignore', log, log],
    env: { PATH: ROOT_PATH, BINDS: binds.join(' ') },
  });
  closeSync(log);
  const ready = join(root, '.holder');
  const deadline = Date.now() + 20_000;
  while (!existsSync(ready)) {
    if (holder.exitCode !== null || Date.now() > deadline) {
      holder.kill('SIGKILL');
      const why = readFileSync(join(dir, 'holder.log'), 'utf8');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the scratch root did not start: ${why || `exit ${holder.exitCode}`}`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  const pid = Number(readFileSync(ready, 'utf8').trim());
  const enter = ['nsenter', `--target=${pid}`, '--mount', '--root', '--wd', '--'];

  return {
    dir,
    at: (path) => join(`/proc/${pid}/root`, path),
    run: (command, env = {}) =>
      spawnSync(enter[0]!, [...enter.slice(1), ...command], { encoding: 'utf8', timeout: 120_000, env: { PATH: ROOT_PATH, LANG: 'C.UTF-8', ...env } }),
    enter,
    close: () => {
      // The holder is the namespace's last process once the test's own have ended: with it, the
      // tmpfs, the overlay and the binds go; none of them was ever mounted on this machine.
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      holder.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
