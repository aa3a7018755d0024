import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's full collection, as `--expose-gc` gives it: the flag set at run time takes effect for
 * contexts made after it, so a new context's `gc` is the function (the process's own global is
 * left alone). Null where the runtime refuses, and then nothing is collected. Used by the service
 * once a burst of work is over (service/idle-memory.ts), and by a PDF worker that let go of a
 * large buffer (workers/document-tasks.ts).
 */
export function fullCollection(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}
