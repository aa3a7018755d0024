import { StorageError } from '../domain/errors';

/** What each errno says to the operator; the codes a full, read-only or failing disk gives. */
const MEANING: Record<string, string> = {
  ENOSPC: 'has no space left',
  EDQUOT: 'is over its disk quota',
  EROFS: 'is read-only',
  EIO: 'failed a write (I/O error)',
};

/**
 * A failed write as a StorageError naming the file, the cause and the fix, when the cause is the
 * disk (not our bug); anything else is returned as it is. The callers have undone what the write
 * left, so the message can say nothing was accepted half-way.
 */
export function asStorageError(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const meaning = code ? MEANING[code] : undefined;
  if (!meaning) return error;
  return new StorageError(`cannot write ${path}: its disk ${meaning} (${code}); the write was undone, try again once the disk can be written`, { cause: error });
}
