import { missingToolLine, missingTools } from '../build/test-deps.mjs';
import { hostChanges, readHostState } from './helpers/host-state';

/**
 * Before any test (issue 19): every tool the tests use is here, or the run stops at once with one
 * line naming the tool and its package, instead of a hundred failures that name none. Around the
 * whole run: the machine's users, groups and packages are what they were (no test installs a
 * package or creates a user outside a throwaway root); a change fails the run, naming it.
 */
export default function setup(): () => void {
  const line = missingToolLine(missingTools('test'));
  if (line) {
    // One line, not vitest's error with a stack: the line is the whole message.
    process.stderr.write(`${line}\n`);
    process.exit(1);
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
