import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
export const LINUX_SEA = join(ROOT, 'dist', 'localsign');
const LOCK = join(ROOT, 'dist', '.sea-build.lock');

const stale = () => {
  const bundle = join(ROOT, 'dist', 'localsign-main.cjs');
  return !existsSync(LINUX_SEA) || statSync(LINUX_SEA).mtimeMs < statSync(bundle).mtimeMs;
};

/**
 * dist/localsign, rebuilt from the bundle `npm test` built when older than it. Test files that
 * need it run in parallel (the SEA test, the .deb test): one builds while the others wait on a
 * lock dir, so none reads a half-written executable.
 */
export function ensureLinuxSea(): string {
  if (!stale()) return LINUX_SEA;
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${LOCK} held for 5 minutes: remove it if no build runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    if (stale()) {
      execFileSync(process.execPath, ['build/sea.mjs'], { cwd: ROOT, env: { ...process.env, LOCALSIGN_SEA_TARGETS: 'linux', LOCALSIGN_SEA_SKIP_BUNDLE: '1' }, stdio: 'ignore', timeout: 240_000 });
    }
  } finally {
    rmdirSync(LOCK);
  }
  return LINUX_SEA;
}
