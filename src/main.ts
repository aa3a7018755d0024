import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runEmbeddedPdfWorker } from './workers/embedded-pdf-worker';
import { PDF_WORKER_ARG } from './workers/entry';

/**
 * The only module with import-time effects. The same bundle is the CLI; started with
 * workerData.role 'sign-worker' it is a signing thread, and with PDF_WORKER_ARG (and an IPC
 * channel) a PDF worker process (workers/serve-worker.ts), when the worker's own bundle is not
 * beside it or there is no script file at all (the single executable: workers/entry.ts).
 */
const role = isMainThread ? null : (workerData as { role?: string } | null)?.role;
if (role === 'sign-worker' && parentPort) {
  void Promise.all([import('./workers/serve-worker'), import('./signing/sign-tasks')]).then(([worker, tasks]) =>
    worker.serveWorker(worker.threadChannel(parentPort!), tasks.runSignTask),
  );
} else if (isMainThread && process.argv[2] === PDF_WORKER_ARG && process.send) {
  // The single executable runs its embedded PDF worker bundle, compiled with its code cache
  // (workers/embedded-pdf-worker.ts); otherwise this bundle's own copy of the engine serves, which
  // loads with the first task, so a failure to load it is that task's error.
  if (!runEmbeddedPdfWorker()) void Promise.all([import('./workers/serve-worker'), import('./workers/handles')]).then(([worker, handles]) =>
    worker.serveWorker(worker.processChannel(process), async (task: never, queue) => (await import('./workers/document-tasks')).runDocumentTask(task, queue), { retireAboveMb: handles.PDF_WORKER_RETIRE_ABOVE_MB }),
  );
} else {
  // Before anything writes: standard handles that cannot be opened or written are dropped, not fatal.
  void import('./log/std-streams').then(({ tolerateUnusableStdio }) => {
    tolerateUnusableStdio();
    return import('./cli/run').then((m) => m.runCli(process.argv.slice(2)));
  });
}
