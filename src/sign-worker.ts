import { parentPort } from 'node:worker_threads';
import { runSignTask } from './signing/sign-tasks';
import { serveWorker, threadChannel } from './workers/serve-worker';

/**
 * Entry point of a signing worker thread, bundled on its own (dist/localsign-worker.cjs): only
 * the signing code and its curves, so a worker starts in a few milliseconds and holds a few MB,
 * instead of parsing the whole service bundle (idle footprint and throughput).
 */
if (parentPort) serveWorker(threadChannel(parentPort), runSignTask);
