import { PDF_WORKER_RETIRE_ABOVE_MB } from './workers/handles';
import { processChannel, serveWorker } from './workers/serve-worker';

/**
 * Entry point of a PDF worker process, bundled on its own (dist/localsign-pdf-worker.cjs): the PDF
 * engine, with pdf-lib and the font read from the vendor bundle on first use. Each worker runs
 * under a heap limit and each task under a deadline (workers/document-work.ts); a
 * document that exhausts either ends this process, never the service. The engine is loaded with
 * the first task, so a failure to load it (a vendor bundle not copied along) is that task's error.
 */
const engine = () => import('./workers/document-tasks');
let loaded: Awaited<ReturnType<typeof engine>> | null = null;
if (process.send) {
  serveWorker(
    processChannel(process),
    async (task: Parameters<Awaited<ReturnType<typeof engine>>['runDocumentTask']>[0], queue) => {
      loaded ??= await engine();
      return loaded.runDocumentTask(task, queue);
    },
    // The buffers it keeps for the next task are bounded there; what grows beyond them retires it.
    { retireAboveMb: PDF_WORKER_RETIRE_ABOVE_MB, keptBytes: () => loaded?.keptBufferBytes() ?? 0 },
  );
}
