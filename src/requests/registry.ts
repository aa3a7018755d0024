import { newRequestId } from '../config/ids';
import type { ErrorRecorder } from '../diagnostics/error-recorder';
import type { Logger } from '../log/logger';
import type { RequestEntry, RequestParams, RequestStore } from '../store/request-store';
import type { AuditLog, AuditRecord } from './audit-log';
import { canTransition } from './lifecycle';

/** A request to create: its kind's name and params (signing/kinds/). */
export interface NewRequest {
  kind: string;
  params: RequestParams;
  credentialKey: string;
  wrapperKey: string | null;
  id?: string;
  /** Its document, journaled with its PENDING record (document-store.ts `admit` says when). */
  input?: Uint8Array;
}

/** A kind's name as the audit record's `kind` (any kind's, as it is: AuditRecord still lists the two built-in ones). */
const auditKind = (kind: string) => kind as AuditRecord['kind'];

/**
 * The only writer of a request's status (STYLE §2). Every final transition is persisted before it
 * is visible and appends its audit record (a DONE only after that record is durable); an ERROR
 * also gets an error record (status null: an asynchronous failure, CONTRACT GET /v1/errors).
 */
export class RequestRegistry {
  /** Requests whose final transition is being written: a second one (timeout vs. result) is dropped. */
  private readonly settling = new Set<string>();
  /** Long-poll waiters per request, woken once its final state is durable and visible. */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly store: RequestStore,
    private readonly audit: AuditLog,
    private readonly errors: ErrorRecorder,
    private readonly log: Logger,
    private readonly now: () => Date,
    /** Tests only: runs between a DONE's audit record and the DONE (LOCALSIGN_TEST_FAULT=kill-after-audit). */
    private readonly afterAudit: (() => void) | null = null,
  ) {}

  get(id: string): RequestEntry | undefined {
    return this.store.get(id);
  }

  list(limit: number): RequestEntry[] {
    return this.store.list(limit);
  }

  /**
   * Creates a PENDING request. Returns the entry at once and `durable`, which settles when the
   * record is on disk: the caller answers 202 only after it, but may start signing meanwhile
   * (the final transition itself waits for `durable`, see JobRunner).
   */
  begin(o: NewRequest): { entry: RequestEntry; durable: Promise<void> } {
    const entry = {
      requestId: o.id ?? newRequestId(),
      kind: o.kind,
      status: 'PENDING',
      credentialKey: o.credentialKey,
      wrapperKey: o.wrapperKey,
      createdAt: this.now().toISOString(),
      completedAt: null,
      params: o.params,
    } as RequestEntry;
    return { entry, durable: this.store.create(entry, o.input) };
  }

  async create(o: Parameters<RequestRegistry['begin']>[0]): Promise<RequestEntry> {
    const { entry, durable } = this.begin(o);
    await durable;
    return entry;
  }

  /**
   * Counts a start of work on a resumed request, durably, before its job runs (recovery ends a
   * request whose attempts a crash keeps cutting short; see lifecycle.ts MAX_ATTEMPTS). The
   * first run needs no record: its creation record implies it.
   */
  recordAttempt(id: string): Promise<void> {
    return this.store.recordAttempt(id, this.now().toISOString());
  }

  /** A clean stop interrupted this attempt: it was not cut short by a crash, so it does not count. */
  releaseAttempt(id: string): Promise<void> {
    return this.store.releaseAttempt(id, this.now().toISOString());
  }

  /** Resolves when `id` is no longer PENDING, or after `ms`; never rejects. */
  waitForFinal(id: string, ms: number): Promise<void> {
    const entry = this.store.get(id);
    if (!entry || entry.status !== 'PENDING' || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<() => void>();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** Answers every long poll now (shutdown: in-flight exchanges must finish within the grace). */
  releaseWaiters(): void {
    for (const id of [...this.waiters.keys()]) this.wake(id);
  }

  private wake(id: string): void {
    for (const done of [...(this.waiters.get(id) ?? [])]) done();
  }

  /**
   * DONE: the audit record and `persist` (the signed document, for PAdES) are made durable side
   * by side, then the DONE record; only then is it visible.
   */
  async complete(id: string, result: Record<string, unknown>, digestHex: string, persist?: () => Promise<void>): Promise<boolean> {
    const entry = this.store.get(id);
    if (!entry || !canTransition(entry.status, 'DONE') || this.settling.has(id)) return false;
    this.settling.add(id);
    const at = this.now().toISOString();
    try {
      // Audit first (CONTRACT Security: every signature has its audit record): a crash or a failed
      // write in between leaves the request PENDING, to be signed again, never DONE unaccounted for.
      await Promise.all([
        this.audit.append({ ts: at, request_id: id, wrapper_key: entry.wrapperKey, credential_key: entry.credentialKey, kind: auditKind(entry.kind), digest: digestHex, outcome: 'DONE' }),
        persist?.(),
      ]);
      this.afterAudit?.();
      await this.store.markDone(id, at, result);
      // One line per request, successes too, so the foreground log shows the work: who, what and
      // how long, never document bytes or digests.
      this.log.info(`${id} ${entry.kind} credential=${entry.credentialKey} DONE in ${Date.parse(at) - Date.parse(entry.createdAt)} ms`);
    } finally {
      this.settling.delete(id);
      this.wake(id);
    }
    return true;
  }

  async fail(id: string, error: unknown, digestHex: string | null = null): Promise<boolean> {
    const entry = this.store.get(id);
    if (!entry || !canTransition(entry.status, 'ERROR') || this.settling.has(id)) return false;
    this.settling.add(id);
    const rec = this.errors.record(error, { requestId: id, status: null, wrapperKey: entry.wrapperKey, context: { kind: entry.kind, credential_key: entry.credentialKey } });
    const at = this.now().toISOString();
    this.log.error(`${id} ${entry.kind} credential=${entry.credentialKey} ERROR in ${Date.parse(at) - Date.parse(entry.createdAt)} ms: ${rec.short} (${rec.error_id})`);
    await Promise.all([
      this.store.markError(id, at, rec.short, rec.error_id),
      this.audit.append({ ts: at, request_id: id, wrapper_key: entry.wrapperKey, credential_key: entry.credentialKey, kind: auditKind(entry.kind), digest: digestHex, outcome: 'ERROR' }),
    ]).finally(() => {
      this.settling.delete(id);
      this.wake(id);
    });
    return true;
  }
}
