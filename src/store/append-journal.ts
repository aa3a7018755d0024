import { closeSync, fdatasync, fstatSync, ftruncateSync, write } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { readFileIfExists, renameWithRetry, tempPathOf } from './atomic-file';
import { openNoFollowSync } from './no-follow';
import { asStorageError } from './storage-error';
import { terminateTornLine } from './torn-line';

interface Pending {
  line: string;
  resolve: (end: number) => void;
  reject: (error: unknown) => void;
}

const writeAll = (fd: number, buf: Buffer) =>
  new Promise<void>((resolve, reject) => {
    const step = (off: number) =>
      write(fd, buf, off, buf.length - off, null, (err, n) => (err ? reject(err) : off + n < buf.length ? step(off + n) : resolve()));
    step(0);
  });
const sync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
const lineOf = (record: unknown) => JSON.stringify(record) + '\n';

/**
 * Records a rewrite serialises per turn of the event loop: about a millisecond of work for the
 * request journal's entries, so appends and HTTP requests are served between slices.
 */
export const REWRITE_SLICE = 500;

/**
 * Append-only JSON-lines file with group commit: appends made while a batch is on its way to disk
 * are written together, with one fdatasync per batch. `append()` resolves only once its line is
 * durable, so a request id handed to a caller survives a crash. Cost per append does not grow
 * with the size of the file (no rewriting a 10,000-result file per request).
 */
export class AppendJournal {
  private fd: number;
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private lines = 0;
  private closed = false;
  /** File size after the last durable batch: a failed batch is cut back to it. */
  private bytes = 0;
  /** A failed batch could not be cut back (read-only disk): the next one starts on a new line. */
  private torn = false;
  /** While a rewrite copies: what batches made durable since its snapshot, to carry into the new file. */
  private since: { text: string[]; lines: number } | null = null;
  /** While a rewrite swaps the files: no batch starts, appends wait in the queue. */
  private swapping: Promise<void> | null = null;
  private rewriting: Promise<void> | null = null;

  constructor(private readonly path: string) {
    terminateTornLine(path);
    this.fd = openNoFollowSync(path, 'append');
    this.bytes = fstatSync(this.fd).size;
  }

  /** Every record in the file, skipping a torn last line left by a crash mid-write. */
  static readAll<T>(path: string): T[] {
    const raw = readFileIfExists(path);
    if (raw === null) return [];
    const text = raw.toString('utf8');
    const out: T[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        /* torn write at crash time: the record was never acknowledged */
      }
    }
    return out;
  }

  get lineCount(): number {
    return this.lines;
  }

  /** Bytes of the file that are durable. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Resolves once the record is durable, with the file offset just past its line. Records are
   * written, and their appends resolved, in the order they were made.
   */
  append(record: unknown): Promise<number> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ line: lineOf(record), resolve, reject });
      if (!this.flushing && !this.swapping) this.flushing = this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    // Yield once so appends from the same tick join the batch.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length > 0 && !this.swapping) {
      const batch = this.queue;
      this.queue = [];
      const text = batch.map((p) => p.line).join('');
      const newline = this.torn ? '\n' : '';
      const buf = Buffer.from(newline + text, 'utf8');
      try {
        await writeAll(this.fd, buf);
        await sync(this.fd);
        let end = this.bytes + newline.length;
        this.lines += batch.length;
        this.bytes += buf.length;
        this.torn = false;
        if (this.since) {
          this.since.text.push(text);
          this.since.lines += batch.length;
        }
        for (const p of batch) p.resolve((end += Buffer.byteLength(p.line)));
      } catch (error) {
        // Disk full or read-only mid-batch: what reached the file is cut off, so no
        // record is torn and none of this batch (whose callers hear of the failure) is replayed
        // later. When even that fails, the next batch starts on a line of its own.
        this.undo();
        const failure = asStorageError(error, this.path);
        for (const p of batch) p.reject(failure);
      }
    }
    this.flushing = null;
  }

  private undo(): void {
    try {
      ftruncateSync(this.fd, this.bytes);
      this.torn = false;
    } catch {
      this.torn = true;
    }
  }

  /** Waits for every queued append to be durable (and for a swap that holds them). */
  async drain(): Promise<void> {
    while (this.flushing || this.swapping) await (this.flushing ?? this.swapping);
  }

  /**
   * Replaces the file with one record per item of `snapshot()` (compaction), made by `toRecord`,
   * without holding the event loop for the whole file:
   * 1. snapshot: `snapshot` runs once every queued batch is durable and before any new one, in one
   *    synchronous step, so it sees exactly the state the file holds. It must be cheap (a shallow
   *    copy) and copy whatever later appends change: `toRecord` runs on its items later;
   * 2. copy: REWRITE_SLICE items at a time are made records, serialised and written to a temp
   *    file, each slice written before the next is made; then fsync. Appends go on meanwhile, to
   *    the old file as ever (durable and answered), and their lines are kept;
   * 3. swap: new batches wait (their callers only, not the event loop) while the batch on its way
   *    ends, the lines kept since the snapshot are added to the temp file, fsync, and the temp
   *    file takes the journal's name. So nothing appended meanwhile is lost.
   * Until the rename the old file is complete and the only one under the name; after it the new
   * one is, holding the snapshot and every line since: a crash at any point leaves one of the two.
   */
  rewrite<T>(snapshot: () => readonly T[], toRecord: (item: T) => unknown = (item) => item): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    if (this.rewriting) return Promise.reject(new Error(`journal ${this.path} is already being rewritten`));
    this.rewriting = this.copyAndSwap(snapshot, toRecord).finally(() => (this.rewriting = null));
    return this.rewriting;
  }

  private async copyAndSwap<T>(snapshot: () => readonly T[], toRecord: (item: T) => unknown): Promise<void> {
    for (;;) {
      await this.drain();
      if (!this.flushing && this.queue.length === 0) break;
    }
    const items = snapshot();
    const since = (this.since = { text: [], lines: 0 });
    const tmp = tempPathOf(this.path);
    let copy: FileHandle | null = null;
    try {
      copy = await open(tmp, 'w', 0o600);
      for (let i = 0; i < items.length; i += REWRITE_SLICE) {
        const text = items.slice(i, i + REWRITE_SLICE).map((item) => lineOf(toRecord(item))).join('');
        await writeAll(copy.fd, Buffer.from(text, 'utf8'));
      }
      await sync(copy.fd);
      await this.swapIn(copy, tmp, items.length, since);
      copy = null;
    } catch (error) {
      await copy?.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw asStorageError(error, this.path);
    } finally {
      this.since = null;
    }
  }

  /** Step 3 of rewrite: `copy` (the snapshot's `lines`, durable) completed with `since` and renamed over the journal. */
  private async swapIn(copy: FileHandle, tmp: string, lines: number, since: { text: string[]; lines: number }): Promise<void> {
    let release = () => {};
    this.swapping = new Promise<void>((resolve) => (release = resolve));
    try {
      while (this.flushing) await this.flushing;
      this.since = null;
      if (since.text.length > 0) {
        await writeAll(copy.fd, Buffer.from(since.text.join(''), 'utf8'));
        await sync(copy.fd);
      }
      await copy.close();
      // Close before replacing: Windows refuses to rename over a file that is open (EPERM), where
      // POSIX lets the old descriptor live on. No batch runs until the reopen (`swapping`). If the
      // replace fails, the old file is still in place, and reopened.
      closeSync(this.fd);
      try {
        await renameWithRetry(tmp, this.path);
        this.lines = lines + since.lines;
        this.torn = false;
      } finally {
        this.fd = openNoFollowSync(this.path, 'append');
        this.bytes = fstatSync(this.fd).size;
      }
    } finally {
      this.swapping = null;
      release();
      if (this.queue.length > 0 && !this.flushing) this.flushing = this.flushLoop();
    }
  }

  async close(): Promise<void> {
    await this.rewriting?.catch(() => undefined);
    await this.drain();
    this.closed = true;
    closeSync(this.fd);
  }
}
