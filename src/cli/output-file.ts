import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeFileAtomic } from '../store/atomic-file';
import { CommandError, EXIT_FAILURE } from './output';
import { osErrorInWords } from '../domain/os-errors';

/**
 * Writes a file the operator named (`-o`, `--out`) atomically: temp file beside it, fsync,
 * rename, so a reader never sees half a PDF and an interrupted run leaves the old file. A
 * missing folder is said in the operator's words, not by naming our temp file.
 */
export function writeOutputFile(path: string, data: string | Uint8Array, mode = 0o644): void {
  assertOutputFolder(path);
  try {
    writeFileAtomic(path, data, mode);
  } catch (e) {
    throw new CommandError(`cannot write ${path}: ${osErrorInWords(e)}`, EXIT_FAILURE);
  }
}

/** Before any work or question: the folder of `path` exists. */
export function assertOutputFolder(path: string): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) throw new CommandError(`cannot write ${path}: the folder ${dir} does not exist`, EXIT_FAILURE);
  if (!statSync(dir).isDirectory()) throw new CommandError(`cannot write ${path}: ${dir} is not a folder`, EXIT_FAILURE);
}
