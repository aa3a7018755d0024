import { appendFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { terminateTornLine } from '../store/torn-line';

/**
 * Appends text to a file that rotates at `maxBytes`, keeping `keep` old files (name.1 … name.N).
 * CONTRACT: errors.jsonl rotates at 10 MiB with 5 files kept; service.log rotates the same way.
 */
export class RotatingFile {
  private size: number;

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly keep: number,
  ) {
    terminateTornLine(path);
    this.size = existsSync(path) ? statSync(path).size : 0;
  }

  append(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    appendFileSync(this.path, text, { mode: 0o600 });
    this.size += bytes;
  }

  private rotate(): void {
    rmSync(`${this.path}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i -= 1) {
      if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    if (this.keep > 0) renameSync(this.path, `${this.path}.1`);
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
