import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { missingToolLine, missingTools } from '../build/test-deps.mjs';
import { hostChanges, readHostState } from './helpers/host-state';
import { NO_OUTSIDE_VECTORS, outsideVectors } from './helpers/outside-vectors';

const ROOT = resolve(__dirname, '..');

/** The test files that read outside data (they import helpers/outside-vectors). */
function outsideDataTests(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && /from '[./]+\/helpers\/outside-vectors'/.test(readFileSync(join(ROOT, 'test', f), 'utf8')))
    .map((f) => relative(ROOT, join(ROOT, 'test', f)))
    .sort();
}

/**
 * Before any test (issue 19): every tool the tests use is here, or the run stops at once with one
 * line naming the tool and its package, instead of a hundred failures that name none. Around the
 * whole run: the machine's users, groups and packages are what they were (no test installs a
 * package or creates a user outside a throwaway root); a change fails the run, naming it. Without
 * the outside test data (../shared/vectors), one line names the test files that skip for it.
 */
export default function setup(): () => void {
  const line = missingToolLine(missingTools('test'));
  if (line) {
    // One line, not vitest's error with a stack: the line is the whole message.
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  if (!outsideVectors('external') || !outsideVectors('pkits') || !outsideVectors('pkits-all') || !outsideVectors('plist')) {
    // A clone without ../shared beside it: the run goes on; what it cannot check is said once.
    process.stderr.write(`skipped where they need it: ${outsideDataTests().join(', ')}: ${NO_OUTSIDE_VECTORS}\n`);
  }
  const before = readHostState();
  return () => {
    const changes = hostChanges(before, readHostState());
    if (changes.length === 0) return;
    // vitest reports a teardown's throw and still exits 0: the exit code is set here.
    process.stderr.write(`the tests changed this machine: ${changes.join('; ')}\n`);
    process.exitCode = 1;
  };
}
