import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../../src/config/config';
import { PDF_WORKER_ARG } from '../../../src/workers/entry';
import { WORKER_SEMI_SPACE_MB } from '../../../src/workers/handles';
import { nodeOptionsValue, pdfWorkerOptions } from '../../../src/workers/sandbox';
import { assertBundle } from '../../helpers/cli';
import { askPdfWorker, codeCacheSpy } from '../../helpers/pdf-worker-probe';
import { tempDir } from '../../helpers/temp-dir';

/**
 * A PDF worker process of the bundle is `node dist/localsign.cjs __pdf-worker` (workers/entry.ts):
 * the launcher compiles the worker's bundle, and the vendor loader pdf-lib's and fontkit's, with the
 * code caches the build made in a PDF worker after its warm-up (build/pdf-worker-cache.cjs). V8
 * takes a cache only under the flags it was made with: the test starts the worker with the options
 * the service gives one (sandbox.ts, the default document memory limit), and a preloaded module in
 * the scratch folder (the one folder a worker may write) records, for each script compiled with a
 * cache, whether V8 took it.
 */
const DIST = resolve(__dirname, '../../../dist');
const BUNDLES = ['localsign-pdf-worker.cjs', 'localsign-vendor.cjs'];
const CACHES = ['localsign-pdf-worker.cache', 'localsign-vendor.cache'];

/** Starts the worker of `dir` as the service does, with a heap limit of `heapMb`; its warm task's answer and what the spy saw. */
async function warmWorker(dir: string, heapMb: number): Promise<{ answer: { ok: boolean }; compiled: { file: string; rejected: boolean }[] }> {
  const scratch = tempDir('localsign-pdf-cache-');
  const spy = codeCacheSpy(scratch);
  const options = [...pdfWorkerOptions({ heapMb, semiSpaceMb: WORKER_SEMI_SPACE_MB, nodeVersion: process.versions.node, readFolders: [dir], scratch }), ...spy.options];
  const answer = await askPdfWorker([process.execPath, join(dir, 'localsign.cjs'), PDF_WORKER_ARG], { NODE_OPTIONS: nodeOptionsValue(options) }, { op: 'warm', scratch });
  return { answer, compiled: spy.compiled() };
}

describe('the PDF worker’s code caches', () => {
  assertBundle();

  it('the build made them after a warm-up: they hold more than the bundles’ top level', () => {
    // A cache made before the code ran holds the eagerly compiled functions only: 74 KB and 128 KB
    // for these bundles (measured when this was written), against 360 KB and 2.5 MB after the warm-up.
    expect(statSync(join(DIST, 'localsign-pdf-worker.cache')).size).toBeGreaterThan(200_000);
    expect(statSync(join(DIST, 'localsign-vendor.cache')).size).toBeGreaterThan(1_000_000);
  });

  it('a PDF worker started as the service starts one takes both', { timeout: 30_000 }, async () => {
    const { answer, compiled } = await warmWorker(DIST, DEFAULTS.documentMemoryLimitMb);
    expect(answer).toMatchObject({ ok: true });
    expect(compiled).toEqual(BUNDLES.map((file) => ({ file, rejected: false })));
  });

  it('under another heap limit V8 refuses them, and the worker works all the same', { timeout: 30_000 }, async () => {
    const { answer, compiled } = await warmWorker(DIST, DEFAULTS.documentMemoryLimitMb * 2);
    expect(answer).toMatchObject({ ok: true });
    expect(compiled).toEqual(BUNDLES.map((file) => ({ file, rejected: true })));
  });

  it('without the worker’s bundle beside the launcher, the service bundle is the PDF worker (src/main.ts)', { timeout: 30_000 }, async () => {
    const dir = tempDir('localsign-pdf-cache-dist-');
    for (const file of ['localsign.cjs', 'localsign-main.cjs', 'localsign-vendor.cjs']) copyFileSync(join(DIST, file), join(dir, file));
    const { answer, compiled } = await warmWorker(dir, DEFAULTS.documentMemoryLimitMb);
    expect(answer).toMatchObject({ ok: true });
    // No cache beside it: nothing compiled with one.
    expect(compiled).toEqual([]);
  });

  it('damaged caches are refused, and the worker works all the same', { timeout: 30_000 }, async () => {
    const dir = tempDir('localsign-pdf-cache-dist-');
    for (const file of ['localsign.cjs', ...BUNDLES]) copyFileSync(join(DIST, file), join(dir, file));
    for (const cache of CACHES) writeFileSync(join(dir, cache), Buffer.alloc(4096, 0x5a));
    const { answer, compiled } = await warmWorker(dir, DEFAULTS.documentMemoryLimitMb);
    expect(answer).toMatchObject({ ok: true });
    expect(compiled).toEqual(BUNDLES.map((file) => ({ file, rejected: true })));
  });
});
