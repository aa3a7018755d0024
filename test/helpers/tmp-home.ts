import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

/** A fresh config dir (0700, as the service wants) that the test removes afterwards. */
export function makeTmpHome(prefix = 'localsign-test-'): { home: string; cleanup(): void } {
  const home = tempDir(prefix);
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
