import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A temporary folder for one test file, removed when the file's tests are over (test/setup/
 * temp-dirs.ts runs `removeTempDirs` after each file), also when they failed: a run leaves the
 * temp dir as it found it (test/global-setup.ts checks). Test keys and PKI files live in here.
 */
const made = new Set<string>();

export function tempDir(prefix = 'localsign-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
