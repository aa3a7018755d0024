import { createHash } from 'node:crypto';
import { AppendJournal } from '../store/append-journal';
import { readFileIfExists, writeFileAtomicAsync } from '../store/atomic-file';
import { readBytesBefore, readLinesBackward } from '../store/tail-reader';
import { DiskQuota } from './disk-quota';

/** CONTRACT Security: one line per signature outcome in audit.jsonl; no API deletes it. */
export interface AuditRecord {
  ts: string;
  request_id: string;
  wrapper_key: string | null;
  credential_key: string;
  /** The request's kind, by its name in `signing/kinds/` (`pades`, `blockchain`, or a kind added there). */
  kind: string;
  /** tx hash, or SHA-256 of the CMS signed attributes for PAdES; lowercase hex; null if none was made. */
  digest: string | null;
  outcome: 'DONE' | 'ERROR';
}

export interface AuditLogOptions {
  /** Each record counts against its application's disk quota (disk-quota.ts). */
  quota?: DiskQuota | null;
  /**
   * Whether a request may still get an outcome: the request journal holds it PENDING. Without
   * it every request may, and every outcome is remembered (a log used without a request store).
   */
  isOpen?: (requestId: string) => boolean;
}

/**
 * Exactly one record per request and outcome: a crash after the audit record of a DONE and before
 * the DONE itself is durable leaves the request PENDING; signed again after the restart, it would
 * get a second DONE record, and every reader would have to de-duplicate. So an append of an
 * outcome the file already holds is skipped: the record of the first signature stands (the
 * retry's signature is the one the result carries; for a blockchain request both are over the
 * same hash).
 *
 * Which outcomes must be remembered, exactly. The registry appends an outcome only for a request
 * the request journal holds PENDING (lifecycle.ts `canTransition`), and once the request's final
 * state is durable it appends none for it again. So only the outcomes of open (PENDING) requests
 * can be asked for twice, and of all the records in the file the log needs exactly those. It
 * finds them in two parts, so that neither memory nor the work at start grows with the file:
 * - the mark (`audit.jsonl.mark`, MarkFile): an offset in audit.jsonl and the outcomes, among the
 *   records before it, of the requests open when the mark was written. No other record before the
 *   offset can ever matter: it was written before the mark, so its request existed then, and was
 *   either final (no outcome is appended for it again) or open (its outcome is in the mark). A
 *   request created later has all its records after the offset: a record follows its request's
 *   creation, and the file only grows. So an older mark stays true, and a mark lost in a crash
 *   costs only a longer read at the next start;
 * - the records from the offset to the end, read from the end at start.
 * Of both, only the outcomes of requests open at start are kept. While the service runs, an
 * outcome is kept from its append until its request is final: the outcomes of final requests are
 * dropped each time a mark is written (every MARK_EVERY_BYTES of records, and at close). A mark
 * that does not match the file (another file, or one cut short) is not trusted: the whole file is
 * read, once.
 *
 * The disk quota needs the records of the last 24 hours: the same read from the end goes on until
 * the records no longer count.
 */
export class AuditLog {
  private readonly journal: AppendJournal;
  private readonly quota: DiskQuota | null;
  private readonly isOpen: (requestId: string) => boolean;
  private readonly markPath: string;
  /** Outcomes in the file or on their way to it, of requests that may still be open. */
  private readonly written = new Set<string>();
  /** Of those, the ones on their way: not durable yet, so not for a mark. */
  private readonly inFlight = new Set<string>();
  /** The end of the last record known durable: every record before it has left `inFlight` (append resolves in file order). */
  private durableEnd: number;
  /** Bytes of records appended since the last mark: a mark is due at MARK_EVERY_BYTES. */
  private sinceMark: number;
  private marking: Promise<void> | null = null;

  constructor(
    private readonly path: string,
    options: AuditLogOptions = {},
  ) {
    this.quota = options.quota ?? null;
    this.isOpen = options.isOpen ?? (() => true);
    this.markPath = markPathOf(path);
    // Opening ends a torn last line first, so every line read below is whole or unreadable.
    this.journal = new AppendJournal(path);
    this.durableEnd = this.journal.size;
    const mark = trustedMark(this.markPath, path);
    const floor = mark?.offset ?? 0;
    for (const [id, outcome] of mark?.open ?? []) this.remember(id, outcome);
    let newest = -Infinity;
    readLinesBackward(path, (line, start, end) => {
      const r = parseRecord(line);
      if (!r) return true; // a line torn by a crash: its record was never acknowledged
      const at = typeof r.ts === 'string' ? Date.parse(r.ts) : NaN;
      if (at > newest) newest = at;
      // Measured from the newest record, not the clock: a read that goes further back than the
      // quota needs only costs time. Records' times are not strictly in file order (a clock set
      // back): the quota's figure is near enough, as its hour buckets are; the outcomes' part is
      // read by offset, exactly.
      const counts = this.quota !== null && !Number.isNaN(at) && DiskQuota.counts(at, newest);
      if (start < floor && !counts) return false;
      if (start >= floor && r.request_id && r.outcome) this.remember(r.request_id, r.outcome);
      if (counts) this.quota?.addAudit(r.wrapper_key ?? null, end - start, at);
      return true;
    });
    // A mark now saves the next start this read.
    this.sinceMark = this.journal.size - floor;
    if (this.sinceMark >= MARK_EVERY_BYTES) this.markSoon();
  }

  /** Outcomes held in memory: those of open requests, and of requests final since the last mark. */
  get remembered(): number {
    return this.written.size;
  }

  append(record: AuditRecord): Promise<void> {
    const key = keyOf(record.request_id, record.outcome);
    if (this.written.has(key)) return Promise.resolve();
    this.written.add(key);
    this.inFlight.add(key);
    const bytes = recordBytes(record);
    this.quota?.addAudit(record.wrapper_key, bytes, Date.parse(record.ts));
    return this.journal.append(record).then(
      (end) => {
        this.inFlight.delete(key);
        this.durableEnd = Math.max(this.durableEnd, end);
        this.sinceMark += bytes;
        if (this.sinceMark >= MARK_EVERY_BYTES) this.markSoon();
      },
      (error: unknown) => {
        // A failed write leaves no record: the next attempt may write it.
        this.inFlight.delete(key);
        this.written.delete(key);
        throw error;
      },
    );
  }

  async close(): Promise<void> {
    await this.marking;
    await this.journal.drain();
    if (this.sinceMark > 0) await this.writeMark();
    await this.journal.close();
  }

  private remember(requestId: string, outcome: string): void {
    if (this.isOpen(requestId)) this.written.add(keyOf(requestId, outcome));
  }

  private markSoon(): void {
    this.marking ??= this.writeMark().finally(() => (this.marking = null));
  }

  /**
   * Drops the outcomes of requests now final, and writes the mark at `durableEnd`: every record
   * before it has its outcome in `written` (or its request is final), and every record on its
   * way lands after it. Never fails: a mark not written only costs a longer read at the next start.
   */
  private async writeMark(): Promise<void> {
    try {
      for (const key of this.written) if (!this.isOpen(requestIdOf(key))) this.written.delete(key);
      const offset = this.durableEnd;
      const check = checkOf(this.path, offset);
      if (!check) return;
      const open = [...this.written].filter((key) => !this.inFlight.has(key)).map((key) => key.split(KEY_SEPARATOR) as [string, string]);
      const mark: MarkFile = { offset, ...check, open };
      this.sinceMark = 0;
      await writeFileAtomicAsync(this.markPath, Buffer.from(JSON.stringify(mark) + '\n'));
    } catch {
      /* see above */
    }
  }
}

/**
 * Records appended between two marks (a few thousand records): about what a start reads beyond
 * the last 24 hours at most, and how many outcomes of final requests are held in memory at most.
 */
export const MARK_EVERY_BYTES = 1024 * 1024;
/** Bytes at the file's start and before the mark's offset that must be the same for the mark to be trusted. */
const MARK_CHECK_BYTES = 256;

/**
 * audit.jsonl.mark: `offset` in audit.jsonl, the outcomes before it of requests that were open
 * when it was written, and the SHA-256 of the file's first bytes and of the bytes before the
 * offset. The mark is trusted only when both are the same: a file moved away and started again, cut
 * short or restored from elsewhere differs (its first record's time and id, or the last one's);
 * audit.jsonl is never rewritten (CONTRACT Security), so one that grew only by appends does not.
 */
interface MarkFile {
  offset: number;
  head_sha256: string;
  before_sha256: string;
  open: [requestId: string, outcome: string][];
}

/** audit.jsonl.mark, beside the file: one of its own entries for the config dir's checks (home-safety.ts: no link, mode 0600). */
export const markPathOf = (auditPath: string) => `${auditPath}.mark`;

function checkOf(auditPath: string, offset: number): Pick<MarkFile, 'head_sha256' | 'before_sha256'> | null {
  const head = readBytesBefore(auditPath, Math.min(offset, MARK_CHECK_BYTES), MARK_CHECK_BYTES);
  const before = readBytesBefore(auditPath, offset, MARK_CHECK_BYTES);
  return head && before ? { head_sha256: sha256(head), before_sha256: sha256(before) } : null;
}

function trustedMark(markPath: string, auditPath: string): MarkFile | null {
  const raw = readFileIfExists(markPath);
  if (raw === null) return null;
  let mark: Partial<MarkFile> | null;
  try {
    mark = JSON.parse(raw.toString('utf8')) as Partial<MarkFile> | null;
  } catch {
    return null;
  }
  const isKey = (k: unknown) => Array.isArray(k) && k.length === 2 && k.every((part) => typeof part === 'string' && part !== '');
  if (!mark || !Number.isSafeInteger(mark.offset) || mark.offset! < 0 || !Array.isArray(mark.open) || !mark.open.every(isKey)) return null;
  const check = checkOf(auditPath, mark.offset!);
  return check && check.head_sha256 === mark.head_sha256 && check.before_sha256 === mark.before_sha256 ? (mark as MarkFile) : null;
}

function parseRecord(line: string): Partial<AuditRecord> | null {
  try {
    return JSON.parse(line) as Partial<AuditRecord> | null;
  } catch {
    return null;
  }
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const KEY_SEPARATOR = '\u0000';
const keyOf = (requestId: string, outcome: string) => `${requestId}${KEY_SEPARATOR}${outcome}`;
const requestIdOf = (key: string) => key.slice(0, key.indexOf(KEY_SEPARATOR));
/** A record's line in audit.jsonl, near enough (its JSON and the newline). */
const recordBytes = (r: Partial<AuditRecord>) => JSON.stringify(r).length + 1;
