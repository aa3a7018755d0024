import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUNDLED } from '../config/version';

/** How a worker thread is started: a file, inline code, or not at all (run inline). */
export type WorkerEntry = { kind: 'file'; path: string } | { kind: 'code'; code: string } | null;

/** How a worker process is started: the program and its arguments (handles.ts processStarter). */
export interface ProcessEntry {
  command: string;
  args: string[];
  /**
   * The script it runs, whose folder (with the vendor bundle beside it) it must read; none for
   * the single executable, whose code is inside it (sandbox.ts).
   */
  script?: string;
}

/** The argument that makes the service bundle or the single executable a PDF worker process (src/main.ts). */
export const PDF_WORKER_ARG = '__pdf-worker';

/**
 * The signing threads' own bundle, beside the service bundle: src/sign-worker.ts, only the signing
 * code and its curves, so a signing thread starts in a few milliseconds and holds a few MB; also a
 * SEA asset. (The PDF worker's, src/pdf-worker.ts, the PDF engine in a process where every document
 * is read under a heap limit and a deadline, is started by the launcher: build/launcher.cjs.)
 */
const SIGN_WORKER_BUNDLE = 'localsign-worker.cjs';

/**
 * - Bundle (`node dist/localsign.cjs`): the worker bundle beside it; if it was not copied along,
 *   the service bundle itself, started with the worker's role (src/main.ts).
 * - Single executable: there is no script file (__filename is the executable), so the worker
 *   bundle is embedded as a SEA asset (sea-config.json) and evaluated in the thread.
 * - TypeScript source (vitest): the work runs inline on the calling thread.
 */
export function resolveWorkerEntry(): WorkerEntry {
  if (!BUNDLED) return null;
  const bundle = SIGN_WORKER_BUNDLE;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sea = require('node:sea') as { isSea(): boolean; getAsset(key: string, encoding: string): string };
    if (sea.isSea()) return { kind: 'code', code: sea.getAsset(bundle, 'utf8') };
  } catch {
    /* node:sea is missing before Node 20.12: not a single executable */
  }
  if (typeof __filename !== 'string') return null;
  const beside = join(dirname(__filename), bundle);
  return { kind: 'file', path: existsSync(beside) ? beside : __filename };
}

function isSea(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false;
  }
}

/** The bundle's launcher (build/launcher.cjs), which starts the PDF worker's bundle with its code cache. */
const LAUNCHER = 'localsign.cjs';

/**
 * The PDF worker process:
 * - bundle: `node dist/localsign.cjs __pdf-worker`, the launcher, which starts the worker's bundle
 *   with the code cache the build made for it after a warm-up (build/pdf-worker-cache.cjs), or,
 *   when that bundle was not copied beside it, the service bundle in the worker's role
 *   (src/main.ts); the service bundle itself when the launcher is not beside it;
 * - single executable: the executable itself with PDF_WORKER_ARG (it has no script file);
 * - TypeScript source (vitest): null, the work runs inline.
 */
export function resolvePdfProcessEntry(): ProcessEntry | null {
  if (!BUNDLED) return null;
  if (isSea() || typeof __filename !== 'string') return { command: process.execPath, args: [PDF_WORKER_ARG] };
  const launcher = join(dirname(__filename), LAUNCHER);
  return { command: process.execPath, args: [existsSync(launcher) ? launcher : __filename, PDF_WORKER_ARG], script: __filename };
}
