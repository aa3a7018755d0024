import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBundle, BUNDLE } from '../../helpers/cli';
import { freePort } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * A program run as a service, a custom action or a scheduled task may have standard handles it
 * cannot write: here both are /dev/null opened for reading only, so every write fails. The CLI
 * writes nothing and exits with the code its outcome deserves (before: 1, from the unhandled
 * write error, whatever the outcome).
 */
const tmp = makeTmpHome('localsign-stdio-');
afterAll(() => tmp.cleanup());

function runWithReadOnlyStdio(args: string[]): number | null {
  assertBundle();
  const fd = openSync('/dev/null', 'r');
  try {
    return spawnSync(process.execPath, [BUNDLE, ...args], { stdio: ['ignore', fd, fd], env: { ...process.env, LOCALSIGN_HOME: tmp.home }, timeout: 30_000 }).status;
  } finally {
    closeSync(fd);
  }
}

describe('standard handles that cannot be written', () => {
  it('a usage error still exits 2, an unreachable service 3, --version 0', async () => {
    expect(runWithReadOnlyStdio(['no-such-command'])).toBe(2);
    expect(runWithReadOnlyStdio(['status', '--port', String(await freePort())])).toBe(3);
    expect(runWithReadOnlyStdio(['--version'])).toBe(0);
  });
});
