import { closeSync, existsSync, fstatSync, ftruncateSync, lstatSync, rmSync, writeSync } from 'node:fs';
import { renameWithRetrySync } from './atomic-file';
import { openNoFollowSync } from './no-follow';
import { asStorageError } from './storage-error';
import { terminateTornLine } from './torn-line';

/** How often an open log checks it is still the file at its path (another process may rotate it). */
const RECHECK_MS = 1000;

/**
 * Appends text to a file that rotates at `maxBytes`, keeping `keep` old files (name.1 … name.N).
 * CONTRACT: errors.jsonl rotates at 10 MiB with 5 files kept; service.log rotates the same way.
 *
 * Rotation never renames a file this process holds open (Windows refuses that): the descriptor
 * is closed first. On POSIX the descriptor stays open between appends (opening, checking and
 * closing it for every line of service.log was four system calls per request), and
 * once a second the file at the path is checked to be still ours, so a rotation by another
 * process (a CLI command) is followed. On Windows each append opens and closes it, so another
 * process can always rotate it; a reader or a virus scanner holding it briefly is retried.
 */
export class RotatingFile {
  private size: number;
  private fd: number | null = null;
  private openedAt = 0;
  private readonly keepOpen = process.platform !== 'win32';

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly keep: number,
  ) {
    terminateTornLine(path);
    this.size = lstatSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }

  append(text: string): void {
    const buf = Buffer.from(text, 'utf8');
    if (this.size > 0 && this.size + buf.length > this.maxBytes) this.rotate();
    const fd = this.descriptor();
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      this.size += buf.length;
    } catch (error) {
      // A disk that filled mid-line: the fragment goes, so the next line is not glued to it.
      try {
        ftruncateSync(fd, fstatSync(fd).size - off);
      } catch {
        /* read-only: the next open's torn-line check ends it */
      }
      this.release();
      throw asStorageError(error, this.path);
    } finally {
      if (!this.keepOpen) this.release();
    }
  }

  /** The open descriptor of the file at the path (opened, or reopened after a rotation elsewhere). */
  private descriptor(): number {
    if (this.fd !== null) {
      if (Date.now() - this.openedAt < RECHECK_MS) return this.fd;
      const there = lstatSync(this.path, { throwIfNoEntry: false });
      const own = fstatSync(this.fd);
      if (there && there.ino === own.ino && there.dev === own.dev) {
        this.openedAt = Date.now();
        this.size = own.size; // other processes append too
        return this.fd;
      }
      this.release();
    }
    try {
      this.fd = openNoFollowSync(this.path, 'append');
    } catch (error) {
      throw asStorageError(error, this.path);
    }
    this.openedAt = Date.now();
    this.size = fstatSync(this.fd).size;
    return this.fd;
  }

  private release(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already gone */
    }
    this.fd = null;
  }

  private rotate(): void {
    this.release(); // Windows refuses to rename a file this process holds open
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
