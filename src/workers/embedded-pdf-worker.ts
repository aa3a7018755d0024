/**
 * The single executable's PDF worker: the PDF worker's own bundle (src/pdf-worker.ts), embedded as
 * a SEA asset, run with the code cache the build made for it in a PDF worker of the executable's
 * Node after its warm-up (build/sea.mjs), as the bundle's launcher runs it from beside itself. The
 * executable itself is the service bundle, whose copy of the engine has no cache: compiling it at
 * each worker's start was most of what kept the executable's PDF workers slower than the bundle's.
 */
interface Launcher {
  PDF_WORKER: string;
  PDF_WORKER_CACHE: string;
  runAsset(name: string, cacheName: string): unknown;
}

/**
 * Runs the embedded PDF worker bundle (it serves the tasks itself) and says so; false outside a
 * single executable, or in one built without the bundle: the caller serves with its own copy.
 */
export function runEmbeddedPdfWorker(): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const launcher = require('../../build/launcher.cjs') as Launcher;
  return launcher.runAsset(launcher.PDF_WORKER, launcher.PDF_WORKER_CACHE) !== null;
}
