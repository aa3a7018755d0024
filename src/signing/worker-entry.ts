import { BUNDLED } from '../config/version';

/** How a signing worker thread is started: a file, inline code, or not at all (sign inline). */
export type WorkerEntry = { kind: 'file'; path: string } | { kind: 'code'; code: string } | null;

/**
 * - Bundle (`node dist/localsign.cjs`): the bundle file itself, started with a worker role.
 * - Single executable: there is no script file (__filename is the executable), so the bundle is
 *   embedded as the SEA asset `localsign.cjs` (sea-config.json) and evaluated in the worker.
 * - TypeScript source (vitest): signing runs inline on the calling thread.
 */
export function resolveWorkerEntry(): WorkerEntry {
  if (!BUNDLED) return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sea = require('node:sea') as { isSea(): boolean; getAsset(key: string, encoding: string): string };
    if (sea.isSea()) return { kind: 'code', code: sea.getAsset('localsign.cjs', 'utf8') };
  } catch {
    /* node:sea is missing before Node 20.12: not a single executable */
  }
  return typeof __filename === 'string' ? { kind: 'file', path: __filename } : null;
}
