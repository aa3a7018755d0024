import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUNDLED } from '../config/version';

/** How a signing worker thread is started: a file, inline code, or not at all (sign inline). */
export type WorkerEntry = { kind: 'file'; path: string } | { kind: 'code'; code: string } | null;

/** The worker's own bundle (src/sign-worker.ts), beside the service bundle or as a SEA asset. */
const WORKER_BUNDLE = 'localsign-worker.cjs';

/**
 * - Bundle (`node dist/localsign.cjs`): `dist/localsign-worker.cjs` beside it; if it was not
 *   copied along, the service bundle itself, started with a worker role (src/main.ts).
 * - Single executable: there is no script file (__filename is the executable), so the worker
 *   bundle is embedded as a SEA asset (sea-config.json) and evaluated in the worker.
 * - TypeScript source (vitest): signing runs inline on the calling thread.
 */
export function resolveWorkerEntry(): WorkerEntry {
  if (!BUNDLED) return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sea = require('node:sea') as { isSea(): boolean; getAsset(key: string, encoding: string): string };
    if (sea.isSea()) return { kind: 'code', code: sea.getAsset(WORKER_BUNDLE, 'utf8') };
  } catch {
    /* node:sea is missing before Node 20.12: not a single executable */
  }
  if (typeof __filename !== 'string') return null;
  const beside = join(dirname(__filename), WORKER_BUNDLE);
  return { kind: 'file', path: existsSync(beside) ? beside : __filename };
}
