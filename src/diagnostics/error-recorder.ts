import { readFileIfExists } from '../store/atomic-file';
import { newErrorId } from '../config/ids';
import { VERSION, COMMIT } from '../config/version';
import { RotatingFile } from '../store/rotating-file';
import { isLocalsignError } from '../domain/errors';
import { escapeControls, stringifyJsonLine } from '../log/escape';
import { ErrorCoalescer, type CoalescedGroup } from './error-coalescer';

/** What GET /v1/errors shows (spec §2 "Error record" + CONTRACT: request_id, status). */
export interface ErrorSummary {
  error_id: string;
  short: string;
  ts: string;
  type: string;
  request_id: string | null;
  status: number | null;
}

/** What stays on the machine in errors.jsonl; leaves only through `report` after confirmation. */
export interface ErrorRecord extends ErrorSummary {
  /**
   * The application whose request or call failed (its `wrp_` key, never the secret), or null
   * when no application was authenticated (a 401, a Host or Origin 403, an unknown route).
   * GET /v1/errors shows an application only its own records (CONTRACT).
   */
  wrapper_key: string | null;
  traceback: string;
  context: Record<string, unknown>;
  versions: Record<string, string>;
}

/** What `record` returns: the record, and whether it was folded into a summary (no full line, no log line). */
export type RecordedError = ErrorRecord & { coalesced: boolean };

const VERSIONS = Object.freeze({
  localsign: VERSION,
  commit: COMMIT,
  node: process.versions.node,
  openssl: process.versions.openssl ?? 'unknown',
  platform: `${process.platform}-${process.arch}`,
});

/**
 * Short message safe for a caller: no stack, first line only, bounded length, and request text in
 * it (a path, a field value) with its control characters escaped: it is shown by GET /v1/errors
 * and printed by clients, and would otherwise carry an ESC or a bidi override to their terminal.
 */
export function shortMessage(error: unknown): string {
  if (isLocalsignError(error)) return escapeControls(error.message.split('\n')[0]!).slice(0, 500);
  return 'unexpected internal error';
}

/**
 * A stack starts with "Name: message", and the message may carry request text with line breaks:
 * that head is escaped so each frame stays one line and no line is the request's.
 */
function stackOf(error: Error): string {
  const head = `${error.name}: ${error.message}`;
  const stack = error.stack ?? head;
  return stack.startsWith(head) ? escapeControls(head) + stack.slice(head.length) : stack;
}

function traceOf(error: unknown): string {
  if (!(error instanceof Error)) return escapeControls(String(error));
  let out = stackOf(error);
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth += 1) {
    out += `\nCaused by: ${cause instanceof Error ? stackOf(cause) : escapeControls(String(cause))}`;
    cause = cause instanceof Error ? (cause as { cause?: unknown }).cause : undefined;
  }
  return out;
}

/**
 * spec §7: every failure gets an err_ id; the detail (traceback, context, versions) goes to
 * errors.jsonl and errors.log (rotated), the summary is listed by GET /v1/errors. Context is
 * built by callers from safe fields only (route, request id) — never headers or bodies.
 */
export class ErrorRecorder {
  private readonly jsonl: RotatingFile;
  private readonly log: RotatingFile;
  /**
   * Recent summaries per application, newest first, at most KEEP_IN_MEMORY each: one
   * application's flood of failures (or an unauthenticated one) never pushes another's out.
   * Records with no application are in the files only.
   */
  private readonly recent = new Map<string, ErrorSummary[]>();
  static readonly KEEP_IN_MEMORY = 1000;

  /** Floods become summaries (error-coalescer.ts). */
  private readonly coalescer = new ErrorCoalescer();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    paths: { errorsJsonl: string; errorsLog: string },
    rotate: { bytes: number; keep: number },
    private readonly now: () => Date = () => new Date(),
    /** Told of each summary written (the context logs one line for it). */
    private readonly onSummary: (summary: ErrorRecord, group: CoalescedGroup) => void = () => undefined,
    /** Told when the files cannot be written, and when they can again (the console says it). */
    private readonly onFiles: (message: string) => void = () => undefined,
  ) {
    this.jsonl = new RotatingFile(paths.errorsJsonl, rotate.bytes, rotate.keep);
    this.log = new RotatingFile(paths.errorsLog, rotate.bytes, rotate.keep);
    // Oldest first, so each list ends newest first as at run time.
    for (const rec of this.readRecords().reverse()) this.remember(rec);
  }

  record(error: unknown, meta: { requestId?: string | null; status?: number | null; wrapperKey?: string | null; context?: Record<string, unknown> }): RecordedError {
    const rec: ErrorRecord = {
      error_id: newErrorId(),
      short: shortMessage(error),
      ts: this.now().toISOString(),
      type: isLocalsignError(error) ? error.type : 'internal',
      // A request id is only ever attached for the application that owns the request.
      request_id: meta.wrapperKey ? (meta.requestId ?? null) : null,
      status: meta.status ?? null,
      wrapper_key: meta.wrapperKey ?? null,
      traceback: traceOf(error),
      context: meta.context ?? {},
      versions: VERSIONS,
    };
    const nowMs = this.now().getTime();
    const full = this.coalescer.admit(rec, nowMs);
    this.flush(nowMs);
    // An application sees each of its own failures in GET /v1/errors, coalesced on disk or not.
    this.remember(rec);
    if (!full) {
      this.flushTimer ??= setInterval(() => this.flush(this.now().getTime()), 60_000).unref();
      return { ...rec, coalesced: true };
    }
    this.write(rec);
    return { ...rec, coalesced: false };
  }

  /** Writes the summaries whose window has passed (every open one with `all`: at close). */
  flush(nowMs = this.now().getTime(), all = false): void {
    for (const group of this.coalescer.due(nowMs, all)) {
      const summary: ErrorRecord = {
        error_id: newErrorId(),
        short: group.short,
        ts: new Date(nowMs).toISOString(),
        type: group.type,
        request_id: null,
        status: group.status,
        wrapper_key: group.wrapper_key,
        traceback: `coalesced: ${group.count} failure(s) like this one from ${group.first_ts} to ${group.last_ts}, recorded as this one record`,
        context: { coalesced: group },
        versions: VERSIONS,
      };
      this.write(summary);
      this.onSummary(summary, group);
    }
    if (all) this.coalescer.prune(Number.POSITIVE_INFINITY);
  }

  /** Stops the summary timer and writes what is still open (service stop). */
  close(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = null;
    this.flush(this.now().getTime(), true);
  }

  /** Whether the last write failed (disk full or read-only): said once, and again when it ends. */
  private filesDown = false;

  /**
   * A record the disk refuses stays in memory (GET /v1/errors lists it; its caller has its
   * error_id): the failure that is being recorded must still get its answer.
   */
  private write(rec: ErrorRecord): void {
    try {
      this.writeFiles(rec);
      if (this.filesDown) this.onFiles('errors.jsonl and errors.log are written again');
      this.filesDown = false;
    } catch (error) {
      if (!this.filesDown) {
        this.onFiles(`error records cannot be written (${error instanceof Error ? error.message : String(error)}); until they can, a failure is in its console line (with its error_id) and, for an application, in GET /v1/errors`);
      }
      this.filesDown = true;
    }
  }

  private writeFiles(rec: ErrorRecord): void {
    this.jsonl.append(stringifyJsonLine(rec) + '\n');
    // Messages and tracebacks carry request text (a path in "no route ..."): escaped line by line
    // so an ESC or a CR/LF from a request neither paints a `tail -f` nor forges a record.
    this.log.append(
      `${rec.ts} ${rec.error_id} [${escapeControls(rec.type)}] status=${rec.status ?? '-'} request=${rec.request_id ?? '-'} app=${rec.wrapper_key ?? '-'} ${escapeControls(rec.short)}\n` +
        `  context: ${stringifyJsonLine(rec.context)}\n  versions: ${JSON.stringify(rec.versions)}\n` +
        rec.traceback.split('\n').map((l) => `  ${escapeControls(l)}`).join('\n') +
        '\n',
    );
  }

  private remember(rec: ErrorRecord): void {
    if (!rec.wrapper_key) return;
    const list = this.recent.get(rec.wrapper_key) ?? [];
    this.recent.set(rec.wrapper_key, list);
    list.unshift(summarise(rec));
    if (list.length > ErrorRecorder.KEEP_IN_MEMORY) list.length = ErrorRecorder.KEEP_IN_MEMORY;
  }

  /** One application's records, newest first, without tracebacks (GET /v1/errors). */
  list(wrapperKey: string, limit: number, requestId?: string): ErrorSummary[] {
    const own = this.recent.get(wrapperKey) ?? [];
    return (requestId ? own.filter((r) => r.request_id === requestId) : own).slice(0, limit);
  }

  /** Full records (tracebacks included) from every rotated file, newest first. */
  readRecords(): ErrorRecord[] {
    const out: ErrorRecord[] = [];
    for (const file of this.jsonl.files()) {
      const lines = (readFileIfExists(file)?.toString('utf8') ?? '').split('\n').filter(Boolean).reverse();
      for (const line of lines) {
        try {
          out.push(JSON.parse(line) as ErrorRecord);
        } catch {
          /* torn line */
        }
      }
    }
    return out;
  }
}

function summarise(r: ErrorRecord): ErrorSummary {
  return { error_id: r.error_id, short: r.short, ts: r.ts, type: r.type, request_id: r.request_id, status: r.status };
}
