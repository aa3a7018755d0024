import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
 * the outside test data (../shared/vectors), one line names the test files that skip for it. The
 * run has a temp dir of its own; whatever a test leaves there fails the run, naming it.
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
  // The run's own temp dir: every test file, service and CLI it starts inherits it (TMPDIR), so
  // what they leave is seen here, not mixed with other programs' files, and /tmp stays as it was.
  const runTmp = mkdtempSync(join(tmpdir(), 'localsign-test-run-'));
  // As the system's temp dir is: tests that run a command as another user (nobody) reach it too.
  chmodSync(runTmp, 0o1777);
  process.env.TMPDIR = runTmp;
  return () => {
    const left = readdirSync(runTmp);
    rmSync(runTmp, { recursive: true, force: true });
    if (left.length > 0) {
      process.stderr.write(`the tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temp dir: ${left.sort().join(', ')}\n`);
      process.exitCode = 1;
    }
    const changes = hostChanges(before, readHostState());
    if (changes.length === 0) return;
    // vitest reports a teardown's throw and still exits 0: the exit code is set here.
    process.stderr.write(`the tests changed this machine: ${changes.join('; ')}\n`);
    process.exitCode = 1;
  };
}
