import { statSync } from 'node:fs';
import { LowSync, type SyncAdapter } from 'lowdb';
import { readFileIfExists, writeFileAtomic } from './atomic-file';
import { withFileLock } from './file-lock';

/** lowdb adapter: atomic temp+rename writes at 0600 (see atomic-file.ts). */
class AtomicJsonFile<T> implements SyncAdapter<T> {
  constructor(private readonly path: string) {}
  read(): T | null {
    const raw = readFileIfExists(this.path);
    return raw === null ? null : (JSON.parse(raw.toString('utf8')) as T);
  }
  write(data: T): void {
    writeFileAtomic(this.path, JSON.stringify(data, null, 2) + '\n');
  }
}

/**
 * One small JSON document shared by the CLI and the running service (wrappers, cache, pairing).
 * `get()` re-reads only when the file changed on disk (one stat per call), so a wrapper revoked
 * by the CLI is refused on the very next request and a CLI `sync` is served at once.
 * `update()` is a locked read-modify-write, so concurrent writers lose nothing.
 */
export class JsonCollection<T> {
  private readonly db: LowSync<T>;
  private stamp = '';

  constructor(
    private readonly path: string,
    private readonly lockPath: string,
    private readonly empty: () => T,
  ) {
    this.db = new LowSync<T>(new AtomicJsonFile<T>(path), empty());
  }

  /**
   * Identity of the file on disk: every write is a rename, so a new inode; size and mtime as a
   * second guard. Plain (number) stats: BigIntStats cost more than the rest of the auth check.
   */
  private diskStamp(): string {
    const s = statSync(this.path, { throwIfNoEntry: false });
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'missing';
  }

  get(): T {
    const now = this.diskStamp();
    if (now !== this.stamp) {
      this.db.read();
      if (this.db.data === null || this.db.data === undefined) this.db.data = this.empty();
      this.stamp = now;
    }
    return this.db.data;
  }

  update<R>(mutate: (data: T) => R): R {
    return withFileLock(this.lockPath, () => {
      this.stamp = '';
      const data = this.get();
      const result = mutate(data);
      this.db.data = data;
      this.db.write();
      this.stamp = this.diskStamp();
      return result;
    });
  }

  /** Replaces the whole document (sync writes a fresh catalogue snapshot). */
  replace(data: T): void {
    withFileLock(this.lockPath, () => {
      this.db.data = data;
      this.db.write();
      this.stamp = this.diskStamp();
    });
  }
}
