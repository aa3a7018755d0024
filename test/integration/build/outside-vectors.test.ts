import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OUTSIDE_VECTORS_DIR } from '../../helpers/outside-vectors';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Outside test data lives in ../shared/vectors beside the clone, never in the repository. A clone
 * without it: `npm test` skips what needs it and says so in one line; `.ci/run` refuses to start.
 */
const ROOT = resolve(__dirname, '../../..');
const work = tempDir('localsign-no-vectors-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a clone without ../shared/vectors', () => {
  it('vitest skips the tests that need it, names them in one line, and passes', () => {
    const missing = join(work, 'nowhere');
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/unit/pki/name-constraints.test.ts', 'test/unit/pki/pkits.test.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, LOCALSIGN_TEST_VECTORS: missing, NO_COLOR: '1', CI: '1', TMPDIR: work },
      timeout: 60_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('skipped where they need it: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('test/unit/pki/pkits.test.ts');
    expect(lines[0]).toContain('test/integration/pades/external-corpus.test.ts');
    expect(lines[0]).toContain(`outside test data not found at ${missing}`);
    // The name-constraint cases that need no certificate still ran; the PKITS ones were skipped.
    expect(r.stdout).toMatch(/Tests\s+\d+ passed \| \d+ skipped/);
  }, 60_000);

  it('with the data beside the clone, that line is not printed', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/unit/config/loopback.test.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, LOCALSIGN_TEST_VECTORS: OUTSIDE_VECTORS_DIR, NO_COLOR: '1', CI: '1', TMPDIR: work },
      timeout: 60_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/skipped where they need it/);
  }, 60_000);

  it('.ci/run stops at once with one line naming ../shared/vectors', () => {
    // A copy of .ci/run in a clone-shaped folder with nothing beside it.
    const clone = join(work, 'clone');
    mkdirSync(join(clone, '.ci'), { recursive: true });
    copyFileSync(join(ROOT, '.ci/run'), join(clone, '.ci/run'));
    const r = spawnSync('bash', [join(clone, '.ci/run')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`../shared/vectors is missing beside the clone (${join(work, 'shared', 'vectors')})`);
  });
});
