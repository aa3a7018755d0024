import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What `gc(options)` takes (V8's gc extension). */
export interface CollectionOptions {
  type: 'major';
  execution: 'sync';
  flavor: 'last-resort';
}

/**
 * The options for V8's fullest collection, for a V8 version (`process.versions.v8`): the
 * last-resort one (V8 12 and later: Node 22, the runtime of the single executable) collects until
 * nothing more goes, shrinks the young generation and gives the freed pages back at once. A plain
 * `gc()` on Node 22 leaves them with the process: a script that let go of 130 MiB of objects was
 * still at 233 MiB 500 ms after `gc()`, and at 56 MiB after the last-resort one (42 ms). Null
 * before V8 12: V8 11 (Node 20) does not know the flavor, and `gc(options)` there collected less
 * than a plain `gc()`, which is what it gets.
 */
export function collectionOptions(v8Version: string): CollectionOptions | null {
  const major = Number(v8Version.split('.')[0]);
  return major >= 12 ? { type: 'major', execution: 'sync', flavor: 'last-resort' } : null;
}

/** The collection, once made (undefined: not yet; null: this runtime refuses). */
let made: (() => void) | null | undefined;

/**
 * V8's full collection, as `--expose-gc` gives it: the flag set at run time takes effect for
 * contexts made after it, so a new context's `gc` is the function (the process's own global is
 * left alone). It runs with collectionOptions where this runtime has them. Made on the first call,
 * off the way to the first /health, and the same function after (one context, not one per call).
 * Null where the runtime refuses, and then nothing is collected. Used by the service once a burst
 * of work is over (service/idle-memory.ts), then by each idle worker, signing thread or PDF
 * worker, that it asks to (a `collect` task: WorkerPool.tidy), and by a PDF worker after its
 * warm-up and when it let go of a large buffer (workers/document-tasks.ts).
 */
export function fullCollection(): (() => void) | null {
  if (made === undefined) made = makeCollection();
  return made;
}

function makeCollection(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    // The context keeps its gc; the process's flags go back to what it started with. V8 stamps a
    // code cache with the flags of the moment and takes one only under the same flags: a PDF
    // worker's caches are made after its warm-up, which ends with this collection
    // (build/pdf-worker-cache.cjs).
    setFlagsFromString('--no-expose-gc');
    if (typeof gc !== 'function') return null;
    const options = collectionOptions(process.versions.v8);
    return options ? () => void gc(options) : () => void gc();
  } catch {
    return null;
  }
}
