import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/**
 * The only module with import-time effects. The same bundle is the CLI and, started with
 * workerData.role = 'sign-worker', a signing worker thread (worker-pool.ts).
 */
if (!isMainThread && (workerData as { role?: string } | null)?.role === 'sign-worker' && parentPort) {
  void import('./signing/worker-pool').then((m) => m.serveSignWorker(parentPort!));
} else {
  void import('./cli/run').then((m) => m.runCli(process.argv.slice(2)));
}
