import { closeSync, fdatasync, fstatSync, ftruncateSync, write } from 'node:fs';
import { readFileIfExists, writeFileAtomic } from './atomic-file';
import { openNoFollowSync } from './no-follow';
import { asStorageError } from './storage-error';
import { terminateTornLine } from './torn-line';

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const writeAll = (fd: number, buf: Buffer) =>
  new Promise<void>((resolve, reject) => {
    const step = (off: number) =>
      write(fd, buf, off, buf.length - off, null, (err, n) => (err ? reject(err) : off + n < buf.length ? step(off + n) : resolve()));
    step(0);
  });
const sync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));

/**
 * Append-only JSON-lines file with group commit: appends made while a batch is on its way to disk
 * are written together, with one fdatasync per batch. `append()` resolves only once its line is
 * durable, so a request id handed to a caller survives a crash. Cost per append does not grow
 * with the size of the file (issue 2: no rewriting a 10,000-result file per request).
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

  append(record: unknown): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ line: JSON.stringify(record) + '\n', resolve, reject });
      if (!this.flushing) this.flushing = this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    // Yield once so appends from the same tick join the batch.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const buf = Buffer.from((this.torn ? '\n' : '') + batch.map((p) => p.line).join(''), 'utf8');
      try {
        await writeAll(this.fd, buf);
        await sync(this.fd);
        this.lines += batch.length;
        this.bytes += buf.length;
        this.torn = false;
        for (const p of batch) p.resolve();
      } catch (error) {
        // Disk full or read-only mid-batch (issue 10): what reached the file is cut off, so no
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

  /** Waits for every queued append to be durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /**
   * Replaces the file with the records `produce()` returns (compaction). `produce` runs after the
   * last queued batch is durable and before any new append, in one synchronous step, so it sees
   * exactly the state the file holds and nothing appended meanwhile is lost.
   */
  async rewrite(produce: () => unknown[]): Promise<void> {
    for (;;) {
      await this.drain();
      if (!this.flushing && this.queue.length === 0) break;
    }
    const records = produce();
    // Close before replacing: Windows refuses to rename over a file that is open (EPERM), where
    // POSIX lets the old descriptor live on. Nothing can append meanwhile: from here to the
    // reopen is one synchronous step. If the replace fails, the old file is still in place.
    closeSync(this.fd);
    try {
      writeFileAtomic(this.path, records.map((r) => JSON.stringify(r) + '\n').join(''));
      this.lines = records.length;
    } finally {
      this.fd = openNoFollowSync(this.path, 'append');
      this.bytes = fstatSync(this.fd).size;
    }
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    closeSync(this.fd);
  }
}
