import { closeSync, existsSync, fstatSync, ftruncateSync, lstatSync, rmSync, writeSync } from 'node:fs';
import { renameWithRetrySync } from './atomic-file';
import { openNoFollowSync } from './no-follow';
import { asStorageError } from './storage-error';
import { terminateTornLine } from './torn-line';

/**
 * Appends text to a file that rotates at `maxBytes`, keeping `keep` old files (name.1 … name.N).
 * CONTRACT: errors.jsonl rotates at 10 MiB with 5 files kept; service.log rotates the same way.
 * Each append opens and closes the file, so rotation never renames a file this process holds
 * open (Windows refuses that); a reader or a virus scanner holding it briefly is retried.
 */
export class RotatingFile {
  private size: number;

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly keep: number,
  ) {
    terminateTornLine(path);
    this.size = lstatSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }

  append(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    let fd: number;
    try {
      fd = openNoFollowSync(this.path, 'append');
    } catch (error) {
      throw asStorageError(error, this.path);
    }
    const before = fstatSync(fd).size;
    try {
      const buf = Buffer.from(text, 'utf8');
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    } catch (error) {
      // A disk that filled mid-line: the fragment goes, so the next line is not glued to it.
      try {
        ftruncateSync(fd, before);
      } catch {
        /* read-only: the next open's torn-line check ends it */
      }
      throw asStorageError(error, this.path);
    } finally {
      closeSync(fd);
    }
    this.size += bytes;
  }

  private rotate(): void {
    rmSync(`${this.path}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i -= 1) {
      if (existsSync(`${this.path}.${i}`)) renameWithRetrySync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    if (this.keep > 0) renameWithRetrySync(this.path, `${this.path}.1`);
    else rmSync(this.path, { force: true });
    this.size = 0;
  }

  /** Paths from newest to oldest (the live file first). */
  files(): string[] {
    const out = [this.path];
    for (let i = 1; i <= this.keep; i += 1) out.push(`${this.path}.${i}`);
    return out.filter((p) => existsSync(p));
  }
}
