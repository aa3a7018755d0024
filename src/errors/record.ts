import { readFileSync } from 'node:fs';
import { newErrorId } from '../config/ids';
import { VERSION, COMMIT } from '../config/version';
import { RotatingFile } from '../log/rotating-file';
import { isLocalsignError } from './errors';

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
  traceback: string;
  context: Record<string, unknown>;
  versions: Record<string, string>;
}

const VERSIONS = Object.freeze({
  localsign: VERSION,
  commit: COMMIT,
  node: process.versions.node,
  openssl: process.versions.openssl ?? 'unknown',
  platform: `${process.platform}-${process.arch}`,
});

/** Short message safe for a caller: no stack, first line only, bounded length. */
export function shortMessage(error: unknown): string {
  if (isLocalsignError(error)) return error.message.split('\n')[0]!.slice(0, 500);
  return 'unexpected internal error';
}

function traceOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let out = error.stack ?? `${error.name}: ${error.message}`;
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth += 1) {
    out += `\nCaused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`;
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
  private recent: ErrorSummary[] = [];
  private static readonly KEEP_IN_MEMORY = 1000;

  constructor(
    paths: { errorsJsonl: string; errorsLog: string },
    rotate: { bytes: number; keep: number },
    private readonly now: () => Date = () => new Date(),
  ) {
    this.jsonl = new RotatingFile(paths.errorsJsonl, rotate.bytes, rotate.keep);
    this.log = new RotatingFile(paths.errorsLog, rotate.bytes, rotate.keep);
    this.recent = this.readRecords()
      .slice(0, ErrorRecorder.KEEP_IN_MEMORY)
      .map(summarise);
  }

  record(error: unknown, meta: { requestId?: string | null; status?: number | null; context?: Record<string, unknown> }): ErrorRecord {
    const rec: ErrorRecord = {
      error_id: newErrorId(),
      short: shortMessage(error),
      ts: this.now().toISOString(),
      type: isLocalsignError(error) ? error.type : 'internal',
      request_id: meta.requestId ?? null,
      status: meta.status ?? null,
      traceback: traceOf(error),
      context: meta.context ?? {},
      versions: VERSIONS,
    };
    this.jsonl.append(JSON.stringify(rec) + '\n');
    this.log.append(
      `${rec.ts} ${rec.error_id} [${rec.type}] status=${rec.status ?? '-'} request=${rec.request_id ?? '-'} ${rec.short}\n` +
        `  context: ${JSON.stringify(rec.context)}\n  versions: ${JSON.stringify(rec.versions)}\n` +
        rec.traceback.split('\n').map((l) => `  ${l}`).join('\n') +
        '\n',
    );
    this.recent.unshift(summarise(rec));
    if (this.recent.length > ErrorRecorder.KEEP_IN_MEMORY) this.recent.length = ErrorRecorder.KEEP_IN_MEMORY;
    return rec;
  }

  /** Newest first, without tracebacks. */
  list(limit: number, requestId?: string): ErrorSummary[] {
    const source = requestId ? this.recent.filter((r) => r.request_id === requestId) : this.recent;
    return source.slice(0, limit);
  }

  /** Full records (tracebacks included) from every rotated file, newest first. */
  readRecords(): ErrorRecord[] {
    const out: ErrorRecord[] = [];
    for (const file of this.jsonl.files()) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse();
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
