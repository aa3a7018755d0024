import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { readNoFollow, readNoFollowSync } from './no-follow';
import { asStorageError } from './storage-error';

/**
 * Waits between rename attempts, about 1 s in all. Windows fails a rename with EPERM, EACCES or
 * EBUSY while another process (an antivirus scanner, the search indexer, a reader) briefly holds
 * the source or the target; graceful-fs and write-file-atomic retry for the same reason. POSIX
 * never reports these codes for a transient cause, so there a retry only delays a real error.
 */
export const RENAME_RETRY_DELAYS_MS: readonly number[] = [10, 20, 40, 80, 150, 200, 250, 250];
const TRANSIENT_RENAME_CODES = new Set(['EPERM', 'EACCES', 'EBUSY']);

export interface RenameRetrySyncOptions {
  rename?: (from: string, to: string) => void;
  sleep?: (ms: number) => void;
}
export interface RenameRetryOptions {
  rename?: (from: string, to: string) => Promise<void>;
  sleep?: (ms: number) => Promise<void>;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => void Atomics.wait(sleeper, 0, 0, ms);
const isTransient = (error: unknown) => TRANSIENT_RENAME_CODES.has((error as NodeJS.ErrnoException).code ?? '');

/**
 * The one way this code base renames a file: `rename`, retried on the transient Windows codes
 * for up to RENAME_RETRY_DELAYS_MS; after the last attempt the rename's own error is thrown.
 * It cannot replace a file this process holds open (Windows refuses that however long we wait):
 * close it first (see AppendJournal.rewrite).
 */
export function renameWithRetrySync(from: string, to: string, options: RenameRetrySyncOptions = {}): void {
  const rename = options.rename ?? renameSync;
  const sleep = options.sleep ?? sleepSync;
  for (let attempt = 0; ; attempt += 1) {
    try {
      rename(from, to);
      return;
    } catch (error) {
      const delay = RENAME_RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !isTransient(error)) throw error;
      sleep(delay);
    }
  }
}

/** renameWithRetrySync without blocking the event loop. */
export async function renameWithRetry(from: string, to: string, options: RenameRetryOptions = {}): Promise<void> {
  const doRename = options.rename ?? rename;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt += 1) {
    try {
      await doRename(from, to);
      return;
    } catch (error) {
      const delay = RENAME_RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !isTransient(error)) throw error;
      await sleep(delay);
    }
  }
}

/** A temp file beside `path`, its name unique to this process and call (same dir: the rename stays atomic). */
export const tempPathOf = (path: string): string => `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/**
 * Write-to-temp, fsync, rename: a reader (the CLI or the service) sees the old file or the new
 * one, never half of one, and a crash leaves one of the two on disk. Mode 0600 (CONTRACT: every
 * file in the config dir). Same idea as lowdb's TextFile/steno, plus fsync and the file mode.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = tempPathOf(path);
  try {
    // `mode` other than 0600 only for files outside the config dir (cli/output-file.ts); the umask applies.
    const fd = openSync(tmp, 'w', mode);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameWithRetrySync(tmp, path);
  } catch (error) {
    // A full or read-only disk: the old file stays whole, no half temp file stays.
    try {
      unlinkSync(tmp);
    } catch {
      /* never made, or already gone */
    }
    throw asStorageError(error, path);
  }
}

/** The file's bytes, or null when it does not exist; a symbolic link is refused (no-follow.ts). */
export function readFileIfExists(path: string): Buffer | null {
  return readNoFollowSync(path);
}

/**
 * The same guarantee without blocking the event loop (document-sized writes on the request
 * path: work files and signed results). fsync runs on libuv's thread pool.
 */
export async function writeFileAtomicAsync(path: string, data: Uint8Array): Promise<void> {
  const tmp = tempPathOf(path);
  try {
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(data);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await renameWithRetry(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw asStorageError(error, path);
  }
}

/**
 * Makes the complete file `from` (written by another process, not yet synced) the file at `path`,
 * durably and without copying it: fsync, then rename (the two are in the same config dir). On
 * failure `from` is left to the caller.
 */
export async function adoptFileAtomicAsync(from: string, path: string): Promise<void> {
  try {
    const handle = await open(from, 'r+');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await renameWithRetry(from, path);
  } catch (error) {
    throw asStorageError(error, path);
  }
}

export function readFileIfExistsAsync(path: string): Promise<Buffer | null> {
  return readNoFollow(path);
}
