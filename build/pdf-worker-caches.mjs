// The PDF worker's code caches (dist/localsign-pdf-worker.cache, dist/localsign-vendor.cache), made
// by a PDF worker after its warm-up (build/pdf-worker-cache.cjs): by the Node that runs the build
// for the bundle (build/bundle.mjs), and by the single executables' Node 22 runtime for their own
// (build/sea.mjs). V8 takes a cache only from its own version and under the flags it was made with.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importTs } from './ts-module.mjs';

export const PDF_WORKER_CACHES = ['localsign-pdf-worker.cache', 'localsign-vendor.cache'];

/**
 * A PDF worker started from the launcher in `dir` (beside the worker's and the vendor bundles) by
 * build/pdf-worker-cache.cjs, with the flags PDF workers start with, run by `node`, given its warm
 * task (what the service gives a worker it keeps ready) and ended: it writes both caches into `dir`
 * as it exits.
 */
export async function makePdfWorkerCaches(dir, { node = process.execPath } = {}) {
  // The V8 flags a PDF worker starts with by default, from the source the service computes them
  // with: V8 takes a cache only under the flags it was made with.
  const [{ DEFAULTS }, { WORKER_SEMI_SPACE_MB }, { pdfWorkerV8Flags }] = await Promise.all(['src/config/config.ts', 'src/workers/handles.ts', 'src/workers/sandbox.ts'].map(importTs));
  const execArgv = pdfWorkerV8Flags({ heapMb: DEFAULTS.documentMemoryLimitMb, semiSpaceMb: WORKER_SEMI_SPACE_MB });
  const scratch = mkdtempSync(join(tmpdir(), 'localsign-build-'));
  try {
    const child = fork(resolve('build/pdf-worker-cache.cjs'), [resolve(dir)], { execPath: node, execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const exited = new Promise((done) => child.on('exit', (code) => done(code)));
    await new Promise((done, fail) => {
      child.on('message', (m) => {
        if (m && m.ready) child.send({ op: 'warm', scratch });
        else if (m && m.ok) done();
        else fail(new Error(`the PDF worker's warm-up failed: ${JSON.stringify(m)}`));
      });
      child.on('exit', (code) => fail(new Error(`the PDF worker exited (${code}) before its warm-up ended`)));
    });
    child.disconnect();
    const code = await exited;
    const missing = PDF_WORKER_CACHES.filter((cache) => !existsSync(`${dir}/${cache}`));
    if (code !== 0 || missing.length > 0) throw new Error(`the PDF worker's code caches were not made (exit ${code}; missing ${missing.join(', ')})`);
    return PDF_WORKER_CACHES.map((cache) => `${dir}/${cache}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
