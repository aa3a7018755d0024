import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { PDF_HEADER } from '../signing/validation';
import { asStorageError } from '../store/storage-error';

/**
 * A large JSON body's document member (`pdf_base64`) decoded into a file while the body arrives,
 * instead of after it (json-large-field.ts, base64-to-file.ts): checking and decoding 133 MB of
 * base64 took the service 0.3 s after the last byte of a 100 MB document's upload (a CPU profile on
 * a 2-core machine), and the body was held whole meanwhile. What streams is exactly what the
 * in-memory fast path takes: a string member of the top-level object, given once, of canonical
 * standard base64 (RFC 4648 §4: no line break, no escape, padding only at its end) of bytes that
 * start with `%PDF-`. Anything else ends as the whole body in memory, byte for byte as it
 * arrived, for the tolerance rules and JSON.parse to answer as they always did: before the member,
 * nothing was written; within it, the file's base64 is the text that was decoded into it.
 */

/** `out` ended where it is, once its file is closed (the caller may then remove the file). */
export function destroyed(out: WriteStream): Promise<void> {
  out.destroy();
  return out.closed ? Promise.resolve() : new Promise<void>((resolve) => out.once('close', () => resolve()));
}

const HEADER = Buffer.from(PDF_HEADER, 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Base64 is checked and decoded this many characters at a time (a multiple of 4). */
const STAGE_CHARS = 1024 * 1024;
/** A key longer than this is not the member's name, however it is escaped (6 bytes a character). */
const KEY_MAX_BYTES = 256;

export interface JsonFieldResult {
  /** The body without the member's characters (`"name":""`), or, when `file` is null, the whole body. */
  rest: Buffer;
  /** The document's length in the file, when the member was decoded into it. */
  file: { length: number } | null;
}

/**
 * The top-level object's members outside the document, read a byte at a time (they are small):
 * where the document's string begins, and whether `name` is given once, as a string.
 */
class OuterScan {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private keyNext = false;
  private key: number[] | null = null;
  private nameNext = false;
  private opened = false;
  /** The members named `name` so far. */
  named = 0;
  /** Not an object whose `name` is a string: the body is kept whole. */
  refused = false;

  constructor(private readonly name: string) {}

  /** Index in `b` of the opening quote of `name`'s string, or -1 when `b` holds none. */
  feed(b: Buffer, from = 0): number {
    for (let i = from; i < b.length && !this.refused; i += 1) {
      const c = b[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.key) this.endKey();
          continue;
        }
        if (this.key && this.key.push(c) > KEY_MAX_BYTES) this.key = null;
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a) continue;
      if (this.depth === 1 && this.nameNext) {
        this.nameNext = false;
        if (c === QUOTE) return i;
        this.refused = true; // a document that is not a string: JSON.parse and the rules answer
        break;
      }
      if (c === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.keyNext) {
          this.keyNext = false;
          this.key = [];
        }
      } else if (c === 0x7b || c === 0x5b) {
        // One object, and nothing after it.
        if (this.depth === 0 && (c !== 0x7b || this.opened)) this.refused = true;
        this.opened = true;
        this.depth += 1;
        if (this.depth === 1) this.keyNext = true;
      } else if (c === 0x7d || c === 0x5d) this.depth -= 1;
      else if (c === 0x2c && this.depth === 1) this.keyNext = true;
      else if (this.depth === 0) this.refused = true;
    }
    return -1;
  }

  /** The member is past: the scan goes on after its closing quote. */
  skipString(): void {
    this.inString = false;
  }

  private endKey(): void {
    const raw = Buffer.from(this.key!);
    this.key = null;
    let key: unknown;
    try {
      key = JSON.parse(`"${raw.toString('utf8')}"`);
    } catch {
      return;
    }
    if (key !== this.name) return;
    this.named += 1;
    this.nameNext = true;
    if (this.named > 1) this.refused = true; // given twice: JSON.parse says which counts
  }
}

/**
 * The sink of a JSON body (read-body.ts consumeBody): `chunk` each piece as it arrives, then
 * `end`. Writes the document into `path`; the file is the caller's to remove on any outcome.
 */
export class JsonFieldToFile {
  private readonly scan: OuterScan;
  private phase: 'head' | 'field' | 'tail' | 'whole' = 'head';
  private readonly head: Buffer[] = [];
  /** Everything after the decoded part, as it arrived: the member's end and the rest (phase tail), or all (whole). */
  private readonly after: Buffer[] = [];
  private readonly stage: Buffer;
  private staged = 0;
  private decoded = 0;
  private out: WriteStream | null = null;
  private failed: ((error: Error) => void) | null = null;
  private pause: (() => void) | null = null;

  /** `stageChars` (a multiple of 4) is the checking and decoding step. */
  constructor(
    name: string,
    private readonly path: string,
    private readonly stageChars = STAGE_CHARS,
  ) {
    this.scan = new OuterScan(name);
    this.stage = Buffer.allocUnsafe(stageChars + 4);
  }

  /** How the reader is stopped on a failed write, and paused while the disk catches up. */
  bind(fail: (error: Error) => void, pause: (resume: Promise<void>) => void): void {
    this.failed = fail;
    this.pause = () => {
      if (this.out) pause(new Promise((resolve) => this.out!.once('drain', () => resolve())));
    };
  }

  chunk(b: Buffer): void {
    if (this.phase === 'head') {
      const at = this.scan.feed(b);
      if (this.scan.refused) return this.keepWhole(b);
      if (at < 0) return void this.head.push(b);
      this.head.push(b.subarray(0, at + 1));
      this.phase = 'field';
      b = b.subarray(at + 1);
    }
    if (this.phase === 'field') {
      const quote = b.indexOf(QUOTE);
      this.stageBytes(quote < 0 ? b : b.subarray(0, quote));
      if (quote < 0) return;
      if (this.phase === 'field') this.flush(true);
      b = b.subarray(quote);
      if (this.phase === 'field') {
        this.phase = 'tail';
        this.scan.skipString();
        this.scan.feed(b, 1);
      }
    } else if (this.phase === 'tail') {
      this.scan.feed(b);
    }
    if (b.length > 0) this.after.push(b);
  }

  async end(): Promise<JsonFieldResult> {
    if (this.phase === 'field' || (this.phase === 'tail' && this.scan.refused)) this.toWhole();
    if (this.out) {
      this.out.end();
      await finished(this.out).catch((error: unknown) => Promise.reject(asStorageError(error, this.path)));
    }
    if (this.phase === 'tail') return { rest: Buffer.concat([...this.head, ...this.after]), file: { length: this.decoded } };
    // The decoded part read back as the base64 it was (canonical groups encode back to themselves).
    const decoded = this.decoded > 0 ? Buffer.from((await readFile(this.path)).toString('base64'), 'latin1') : Buffer.alloc(0);
    return { rest: Buffer.concat([...this.head, decoded, ...this.after]), file: null };
  }

  cancel(): Promise<void> {
    return this.out ? destroyed(this.out) : Promise.resolve();
  }

  private keepWhole(b: Buffer): void {
    this.phase = 'whole';
    this.after.push(...this.head.splice(0), b);
  }

  /** From here on the body is kept as it arrives: what is staged is not decoded. */
  private toWhole(): void {
    this.after.unshift(Buffer.from(this.stage.subarray(0, this.staged)));
    this.staged = 0;
    this.phase = 'whole';
  }

  private stageBytes(b: Buffer): void {
    let at = 0;
    while (at < b.length && this.phase === 'field') {
      const take = Math.min(b.length - at, this.stage.length - this.staged);
      b.copy(this.stage, this.staged, at, at + take);
      this.staged += take;
      at += take;
      if (this.staged >= this.stageChars) this.flush(false);
    }
    if (at < b.length) this.after.push(b.subarray(at));
  }

  /**
   * Decodes the staged characters: all of them at the member's end, else whole groups but the
   * last (a `=` there may end the member in the next chunk). A group that does not encode back to
   * itself is not canonical: the body is kept whole from there.
   */
  private flush(last: boolean): void {
    const count = last ? this.staged : Math.max(0, (Math.floor(this.staged / 4) - 1) * 4);
    if (last && (count % 4 !== 0 || this.decoded + count === 0)) return this.toWhole();
    const text = this.stage.toString('latin1', 0, count);
    const bytes = Buffer.from(text, 'base64');
    // Encoding back gives `=` only at the end: so a step that encodes back to itself holds
    // padding there at most, which only the member's last step may.
    if (bytes.toString('base64') !== text || (!last && text.endsWith('='))) return this.toWhole();
    // The document's first bytes are `%PDF-`, however few each step decodes.
    if (this.decoded < HEADER.length) {
      const n = Math.min(HEADER.length - this.decoded, bytes.length);
      if (!bytes.subarray(0, n).equals(HEADER.subarray(this.decoded, this.decoded + n))) return this.toWhole();
      if (last && this.decoded + bytes.length < HEADER.length) return this.toWhole();
    }
    this.write(bytes);
    this.decoded += bytes.length;
    this.stage.copy(this.stage, 0, count, this.staged);
    this.staged -= count;
  }

  private write(bytes: Buffer): void {
    if (!this.out) {
      this.out = createWriteStream(this.path, { mode: 0o600 });
      this.out.on('error', (error) => this.failed?.(asStorageError(error, this.path) as Error));
    }
    if (!this.out.write(bytes)) this.pause?.();
  }
}
