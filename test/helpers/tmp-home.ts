import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh config dir (0700, as the service wants) that the test removes afterwards. */
export function makeTmpHome(prefix = 'localsign-test-'): { home: string; cleanup(): void } {
  const home = mkdtempSync(join(tmpdir(), prefix));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
