import { chmodSync, lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigurationError } from '../domain/errors';
import type { HomePaths } from './paths';

/**
 * The entries of the config dir that belong to localsign: every name in HomePaths, its rotations
 * (`errors.jsonl.1`, `service.log.3`) and its temp files (`wrappers.json.<pid>.<hex>.tmp`).
 */
function ownEntries(paths: HomePaths): { path: string; stat: Stats }[] {
  const names = Object.entries(paths).filter(([k]) => k !== 'home').map(([, p]) => basename(p));
  const out: { path: string; stat: Stats }[] = [];
  for (const name of readdirSync(paths.home)) {
    if (!names.some((own) => name === own || name.startsWith(`${own}.`))) continue;
    const path = join(paths.home, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat) out.push({ path, stat });
  }
  return out;
}

/**
 * Hardening: a symbolic link in the config dir would be followed (appends would go through it,
 * a linked wrappers.json would be read). The store opens its files without following links
 * (store/no-follow.ts); the folders `results/` and `work/` and every other own entry are checked
 * here, at start, so a link is refused with the fix named before anything reads through it.
 */
export function refuseLinks(paths: HomePaths): void {
  for (const { path, stat } of ownEntries(paths)) {
    if (stat.isSymbolicLink()) {
      const what = path === paths.results || path === paths.work ? 'folder' : 'file';
      throw new ConfigurationError(`${path} is a symbolic link; localsign does not follow links in its config dir: remove it (rm ${path}) and put the real ${what} there`);
    }
  }
}

/**
 * CONTRACT: every file in the config dir is 0600 (folders 0700). Secret files others can read are
 * refused (paths.ts assertPrivateHome); the other store files (`requests.jsonl`, `results/`, the
 * logs) are tightened at start, and each change is said (loose modes are not accepted silently).
 * A 0700 `results/` or `work/` keeps the documents inside from others whatever their own modes.
 * POSIX only: on Windows the config dir's ACL is inherited (windows-acl.ts).
 */
export function tightenModes(paths: HomePaths, platform: NodeJS.Platform = process.platform): string[] {
  if (platform === 'win32') return [];
  const said: string[] = [];
  for (const { path, stat } of ownEntries(paths)) {
    const want = stat.isDirectory() ? 0o700 : 0o600;
    const mode = stat.mode & 0o777;
    if (mode & 0o077) {
      chmodSync(path, want);
      said.push(`${path} was accessible by other users (mode ${mode.toString(8).padStart(3, '0')}); set to ${want.toString(8)}`);
    }
  }
  return said;
}

const TEMP = /\.(\d+)\.[0-9a-f]+\.tmp$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Hardening: half-written temp files (store/atomic-file.ts writes `<file>.<pid>.<hex>.tmp` and
 * renames it) would survive a crash, and every restart. The service removes them at start, under
 * its instance lock: in `work/` and `results/` (only the service writes there) all of them, in the
 * config dir itself those whose writer is gone (a CLI command may be writing wrappers.json now).
 */
export function removeStaleTemps(paths: HomePaths): number {
  let removed = 0;
  const remove = (path: string) => {
    rmSync(path, { force: true });
    removed += 1;
  };
  for (const dir of [paths.work, paths.results]) {
    // `.tmp.part`: a PDF worker's answer cut off mid-write (workers/large-bytes.ts).
    for (const name of readdirSync(dir)) if (name.endsWith('.tmp') || name.endsWith('.tmp.part')) remove(join(dir, name));
  }
  for (const name of readdirSync(paths.home)) {
    const m = TEMP.exec(name);
    if (m && !alive(Number(m[1]))) remove(join(paths.home, name));
  }
  return removed;
}
