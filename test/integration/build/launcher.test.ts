import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBundle } from '../../helpers/cli';
import { tempDir } from '../../helpers/temp-dir';

/**
 * dist/localsign.cjs starts dist/localsign-main.cjs with V8's code cache the build made for it
 * (build/launcher.cjs): this Node accepts the cache, and a cache that does not fit (another Node's,
 * damaged, missing) only means the bundle is compiled as usual.
 */
const DIST = resolve(__dirname, '../../../dist');
const launcher = createRequire(__filename)(join(DIST, 'localsign.cjs')) as { compile(file: string, cachedData?: Buffer): { cachedDataRejected?: boolean } };

describe('the launcher and its code cache', () => {
  it('the build made a cache this Node accepts for the bundle', () => {
    assertBundle();
    const script = launcher.compile(join(DIST, 'localsign-main.cjs'), readFileSync(join(DIST, 'localsign-main.cache')));
    expect(script.cachedDataRejected).toBe(false);
  });

  it('with a damaged cache, or none, the command runs all the same', () => {
    const expected = execFileSync(process.execPath, [join(DIST, 'localsign.cjs'), 'version', '--json'], { encoding: 'utf8' });
    for (const cache of ['damaged', 'none'] as const) {
      const dir = tempDir('localsign-launcher-');
      for (const f of ['localsign.cjs', 'localsign-main.cjs', 'localsign-worker.cjs', 'localsign-vendor.cjs']) copyFileSync(join(DIST, f), join(dir, f));
      if (cache === 'damaged') writeFileSync(join(dir, 'localsign-main.cache'), Buffer.alloc(4096, 0x5a));
      expect(launcher.compile(join(dir, 'localsign-main.cjs'), cache === 'damaged' ? readFileSync(join(dir, 'localsign-main.cache')) : undefined).cachedDataRejected).toBe(cache === 'damaged' ? true : undefined);
      expect(execFileSync(process.execPath, [join(dir, 'localsign.cjs'), 'version', '--json'], { encoding: 'utf8' }), cache).toBe(expected);
    }
  });

  it('starts a PDF worker only for a process with an IPC channel: otherwise __pdf-worker is an unknown command', () => {
    assertBundle();
    const run = spawnSync(process.execPath, [join(DIST, 'localsign.cjs'), '__pdf-worker'], { encoding: 'utf8' });
    expect([run.status, run.stderr.trim()]).toEqual([2, 'unknown command __pdf-worker (see `localsign --help`)']);
  });
});
