import { closeSync, constants, lstatSync, openSync, readFileSync } from 'node:fs';
import { open, lstat, type FileHandle } from 'node:fs/promises';
import { ConfigurationError } from '../domain/errors';

/**
 * Store files are opened without following a symbolic link in their last component (hardening:
 * appends must not go through a link, a linked wrappers.json must not be read, a results/<id>.pdf
 * link must not serve another file). POSIX has O_NOFOLLOW for that (open(2): ELOOP on a link);
 * Windows has no such flag in Node, so there the path is checked with lstat just before it is
 * opened. The folders themselves are checked at start (config/home-safety.ts).
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const FLAGS = {
  read: constants.O_RDONLY,
  append: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  update: constants.O_RDWR,
} as const;
export type OpenMode = keyof typeof FLAGS;

export function linkRefused(path: string): ConfigurationError {
  return new ConfigurationError(`${path} is a symbolic link; localsign does not follow links in its config dir (remove the link and put the real file there)`);
}

function isLinkError(error: unknown): boolean {
  // Linux and macOS answer ELOOP; FreeBSD EMLINK (open(2)).
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOOP' || code === 'EMLINK';
}

function lstatIsLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export function openNoFollowSync(path: string, mode: OpenMode, fileMode = 0o600): number {
  if (NOFOLLOW === 0 && lstatIsLink(path)) throw linkRefused(path);
  try {
    return openSync(path, FLAGS[mode] | NOFOLLOW, fileMode);
  } catch (error) {
    throw isLinkError(error) ? linkRefused(path) : error;
  }
}

export async function openNoFollow(path: string, mode: OpenMode, fileMode = 0o600): Promise<FileHandle> {
  if (NOFOLLOW === 0 && (await lstat(path).then((s) => s.isSymbolicLink(), () => false))) throw linkRefused(path);
  try {
    return await open(path, FLAGS[mode] | NOFOLLOW, fileMode);
  } catch (error) {
    throw isLinkError(error) ? linkRefused(path) : error;
  }
}

/** `use` on the file opened for reading, never through a link; `missing` when it does not exist. */
export function withFileNoFollowSync<T, M>(path: string, missing: M, use: (fd: number) => T): T | M {
  let fd: number;
  try {
    fd = openNoFollowSync(path, 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return missing;
    throw error;
  }
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** The whole file, never through a link; null when it does not exist. */
export function readNoFollowSync(path: string): Buffer | null {
  return withFileNoFollowSync(path, null, (fd) => readFileSync(fd));
}

export async function readNoFollow(path: string): Promise<Buffer | null> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(path, 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
