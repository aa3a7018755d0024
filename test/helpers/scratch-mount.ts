import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempDir } from './temp-dir';

/**
 * Small filesystems a test mounts for itself (issue 10, resilience: disk full, read-only config
 * dir). Mounting needs root, as CI runs; `tryMount*` return null with the reason when this machine
 * cannot mount, so the test can say why it is skipped.
 */
export interface ScratchMount {
  dir: string;
  /** Unmounts (lazily if something still holds it) and removes what the mount left. */
  cleanup(): void;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: 'pipe' });
}

function why(error: unknown): string {
  const e = error as { stderr?: Buffer; message?: string };
  return (e.stderr?.toString().trim() || e.message || String(error)).split('\n')[0]!;
}

function unmount(dir: string): void {
  try {
    run('umount', [dir]);
  } catch {
    try {
      run('umount', ['-l', dir]);
    } catch {
      /* not mounted */
    }
  }
}

/**
 * Why this machine cannot mount what `mount` would (null: it can), found by mounting once and
 * unmounting at once. Tests call it when collected and mount for real in their hooks: a mount
 * made at collection would outlive a run that filters its describe out (its afterAll never runs).
 */
export function whyNoMount(mount: () => ScratchMount | { skip: string }): string | null {
  const probe = mount();
  if ('skip' in probe) return probe.skip;
  probe.cleanup();
  return null;
}

/** A tmpfs of `sizeBytes` (mount -t tmpfs -o size=…). */
export function tryMountTmpfs(sizeBytes: number): ScratchMount | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'mounting a size-limited tmpfs needs root (CI runs as root)' };
  const dir = tempDir('localsign-harden-tmpfs-');
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `mount -t tmpfs failed: ${why(error)}` };
  }
  return {
    dir,
    cleanup: () => {
      unmount(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Ext4Mount extends ScratchMount {
  /** ext4's own test switch: an error with errors=remount-ro, so the fs turns read-only at once, open files included. */
  turnReadOnly(): void;
  /** Unmounts, repairs with e2fsck and mounts read-write again (the service must be stopped). */
  remountAfterRepair(): void;
}

/** A loop-mounted ext4 image of `sizeBytes` with errors=remount-ro (mkfs.ext4, losetup through mount -o loop). */
export function tryMountExt4(sizeBytes: number): Ext4Mount | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'loop-mounting an ext4 image needs root (CI runs as root)' };
  const base = tempDir('localsign-harden-ext4-');
  const image = join(base, 'fs.ext4');
  const dir = join(base, 'mnt');
  mkdirSync(dir, { mode: 0o700 });
  const mount = () => run('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
  try {
    const fd = openSync(image, 'w');
    writeSync(fd, Buffer.alloc(1), 0, 1, sizeBytes - 1);
    closeSync(fd);
    run('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
    mount();
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    return { skip: `loop-mounting an ext4 image failed: ${why(error)}` };
  }
  const knob = () => {
    const source = execFileSync('findmnt', ['-n', '-o', 'SOURCE', dir]).toString().trim();
    return `/sys/fs/ext4/${basename(source)}/trigger_fs_error`;
  };
  if (!existsSync(knob())) {
    unmount(dir);
    rmSync(base, { recursive: true, force: true });
    return { skip: 'this kernel has no /sys/fs/ext4/<dev>/trigger_fs_error' };
  }
  return {
    dir,
    turnReadOnly: () => run('sh', ['-c', `echo 1 > ${knob()}`]),
    remountAfterRepair: () => {
      run('umount', [dir]);
      try {
        run('e2fsck', ['-f', '-y', image]);
      } catch (error) {
        // 1: errors were corrected (e2fsck(8)); anything higher is a real failure.
        if ((error as { status?: number }).status !== 1) throw error;
      }
      mount();
    },
    cleanup: () => {
      unmount(dir);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Writes a file until the filesystem has no byte left; returns its path (remove it to free the space). */
export function fillUp(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'a');
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
