import { isStorageError, LocalsignError } from '../domain/errors';
import type { RequestRegistry } from '../requests/registry';
import type { RequestEntry } from '../store/request-store';
import type { AcceptedCatalog, Job, JobDeps, JobRun } from './job-types';
import { signatureKind, type SignatureKind } from './kinds';
import { Slots } from '../workers/slots';

/** Backoff of a final transition the disk refused (full or read-only): 250 ms doubling to 5 s. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
/**
 * How long past its timeout a run waits for the signature its token is making (C_Sign under way,
 * see `run`): a card takes a second or two; one whose C_Sign never returns does not keep its
 * request PENDING for ever.
 */
const SIGNING_GRACE_MS = 30_000;

/**
 * Runs accepted requests to DONE or ERROR. A request never stays PENDING forever: each run races
 * the request timeout (CONTRACT: default 10 minutes, counted from creation, so a resumed request
 * does not get a fresh allowance), and in-flight runs are tracked so shutdown can wait for them.
 */
export class JobRunner {
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * Requests whose current run counts as an attempt (see lifecycle.ts MAX_ATTEMPTS): a first run
   * from its start (its creation record implies the attempt), a resumed one once its attempt
   * record is durable. A clean stop gives these attempts back (`releaseUnfinished`).
   */
  private readonly counted = new Set<string>();
  /** Jobs that hold a document, running at once (each holds its input and output, in memory). */
  private readonly documentSlots: Slots;
  /** Set by `drain`: final transitions the disk refuses are left PENDING for the next start. */
  private stopping = false;

  constructor(
    private readonly registry: RequestRegistry,
    private readonly deps: JobDeps,
    private readonly timeoutMs: number,
    documentConcurrency = 4,
  ) {
    this.documentSlots = new Slots(documentConcurrency);
  }

  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Runs a request. `created` settles when its PENDING record is durable: signing may start
   * before (it overlaps the fsync), the final transition never does.
   */
  start(entry: RequestEntry, created: Promise<void> = Promise.resolve(), accepted?: AcceptedCatalog): void {
    this.launch(entry, created, false, accepted);
  }

  /**
   * Runs a request left PENDING by an earlier process. Its attempt is recorded durably once it is
   * its turn (after its document slot) and before the job starts, so a job that takes the process
   * down is known for it at the next start, while one still queued at a crash is not charged.
   */
  resume(entry: RequestEntry): void {
    this.launch(entry, Promise.resolve(), true);
  }

  private launch(entry: RequestEntry, created: Promise<void>, resumed: boolean, accepted?: AcceptedCatalog): void {
    const id = entry.requestId;
    if (this.inFlight.has(id)) return;
    if (!resumed) this.counted.add(id);
    // Awaited only once the job has run: a record the disk refused (issue 10, disk full) must not
    // be an unhandled rejection meanwhile, which ends the process.
    created.catch(() => undefined);
    const run = this.run(entry, created, resumed, accepted).finally(() => {
      this.inFlight.delete(id);
      this.counted.delete(id);
    });
    this.inFlight.set(id, run);
  }

  private async run(entry: RequestEntry, created: Promise<void>, resumed: boolean, accepted?: AcceptedCatalog): Promise<void> {
    const remaining = Date.parse(entry.createdAt) + this.timeoutMs - this.deps.now().getTime();
    // The timeout aborts the run: the signal reaches every queue and step the job waits in (the
    // document slots, the worker pools, the chip's queue, PDF workers, HTTP calls), so the request
    // ends ERROR at once, even while it waits behind a busy token, and the race below ends it even
    // for a step that ignores the signal.
    const abort = new AbortController();
    const timeout = new Promise<never>((_, reject) => {
      abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
    });
    // Issue 18: "its audit record then says ERROR for a signature that exists". The timeout still
    // bounds the whole run (CONTRACT: never PENDING for ever; a timestamp authority that never
    // answers ends it then), so what it must not do is hide a signature. Nothing signs without
    // `signing()` first (the PKCS#11 chip calls it right before C_Sign, after its last look at the
    // signal), and `signing()` refuses once the run is aborted: a request that has ended never
    // reaches the token. Between `signing()` and `signed()` the token is making the signature and
    // nothing can stop it, so a timeout then waits for its outcome (at most SIGNING_GRACE_MS): a
    // token error ends the request with that error, and a signature ends it ERROR at once, its
    // audit record naming the digest signed. Once `signed()` was called, any ERROR names it.
    let signingDigest: string | null = null;
    let signedDigest: string | null = null;
    let expired = false;
    let abandoned = false;
    const timedOut = () => new LocalsignError('upstream', `signing did not complete within ${Math.round(this.timeoutMs / 1000)} s`, { type: 'timeout' });
    // Who signs: the engine of the credential the request was accepted with (params.engine).
    const engine = this.deps.engines(entry.params.engine);
    let kind: SignatureKind | null = null;
    const jobRun: JobRun = {
      engine,
      signal: abort.signal,
      resumed,
      accepted,
      signing: (digestHex) => {
        abort.signal.throwIfAborted();
        signingDigest = digestHex;
      },
      signed: (digestHex) => {
        signedDigest = digestHex;
        if (expired) abort.abort(timedOut());
        abort.signal.throwIfAborted();
      },
    };
    let timer = setTimeout(() => {
      expired = true;
      if (signingDigest === null || signedDigest !== null) return abort.abort(timedOut());
      timer = setTimeout(() => {
        abandoned = signedDigest === null;
        abort.abort(timedOut());
      }, SIGNING_GRACE_MS);
      timer.unref?.();
    }, Math.max(0, remaining));
    timer.unref?.();
    // Observed here so a timeout firing while the job module still loads is not an unhandled
    // rejection; Promise.race below still sees it.
    timeout.catch(() => undefined);
    let settle: () => Promise<unknown>;
    let failing = false;
    /** The result's write, started as soon as the job had it, and how to remove it. */
    let persisted: { written: Promise<void> | null; discard: (() => Promise<void>) | null } | null = null;
    try {
      kind = (await signatureKind(entry.kind)) as SignatureKind;
      const job = kind.run as Job;
      // A job that must queue for its slot lets a large document wait on disk meanwhile.
      if (kind.holdsDocument && !this.documentSlots.free) kind.queued?.(entry, this.deps);
      const release = kind.holdsDocument ? await this.documentSlots.acquire(abort.signal) : () => undefined;
      let work: ReturnType<Job> | null = null;
      let outcome;
      try {
        // A resume that only waits for a remote engine's answer does no local work a crash could
        // repeat, so it is not an attempt (a phone approval may span several restarts).
        if (resumed && !(engine.remote && (await kind.digestOut(entry, this.deps)))) {
          const attempt = this.registry.recordAttempt(entry.requestId);
          attempt.catch(() => undefined); // observed even when the timeout wins the race
          await Promise.race([attempt, timeout]);
          this.counted.add(entry.requestId);
        }
        // Test build only (config.ts testFaultOf): dropped from the release bundle.
        TEST_FAULT: if (this.deps.testFault === 'kill-in-job') await killForTest(created);
        // A digest leaves the machine (a remote engine) only once its PENDING record is durable
        // and visible: the answer may be pushed at once, and /receive must find the request (a
        // push before that was a 404 under load), and a crash must not forget a request that is
        // already being signed out there.
        if (engine.remote) await Promise.race([created, timeout]);
        work = job(entry, this.deps, jobRun);
        outcome = await Promise.race([work, timeout]);
      } finally {
        // The slot is given back when the job's work has stopped, not when the timeout ended its
        // request (issue 18): its document and its PDF worker are in use until then.
        if (work) void work.then(release, release);
        else release();
      }
      // The result is written now, while the PENDING record and the input may still be on their
      // way to the disk (issue 18: on a small PDF the result's own fsync waited for theirs); the
      // DONE record is written only after all of them (complete, after `created` below).
      const { persist, discard } = outcome;
      let early: Promise<void> | null = persist ? persist() : null;
      early?.catch(() => undefined);
      persisted = { written: early, discard: discard ?? null };
      settle = () => {
        // A retry after a refused write (settleDurably) writes again.
        const write = early ?? persist?.();
        early = null;
        return this.registry.complete(entry.requestId, outcome.result, outcome.digestHex, write ? () => write : undefined);
      };
    } catch (error) {
      abort.abort(error);
      failing = true;
      // A token that never answered its C_Sign may still have signed: its digest is named too.
      const digest = signedDigest ?? (abandoned ? signingDigest : null) ?? kind?.auditDigest(entry) ?? null;
      settle = () => this.registry.fail(entry.requestId, error, digest);
    } finally {
      clearTimeout(timer);
      // The request's own chip PIN is over with its run, whatever happened (issue 16).
      accepted?.chipPin?.fill(0);
    }
    try {
      await created;
    } catch (error) {
      // No DONE can follow: a result already written goes.
      if (persisted?.written && persisted.discard) await persisted.written.then(persisted.discard, () => undefined);
      // The PENDING record never reached the disk: the caller got an error, not a 202.
      if (!this.registry.get(entry.requestId)) return;
      // It did, but the document did not (a full disk takes a short line, not a document): the
      // caller got the error, and the request must not stay PENDING for the rest of this run.
      failing = true;
      settle = () => this.registry.fail(entry.requestId, error, kind?.auditDigest(entry) ?? null);
    }
    await this.settleDurably(entry, settle, failing, signedDigest ?? kind?.auditDigest(entry) ?? null);
    // Once final, the documents kept for a restart are no longer needed (this runs after
    // `created`, so the work file's own write has finished). If the final state could not be
    // written (the journal closed at shutdown), the request is still PENDING and keeps them.
    if (this.registry.get(entry.requestId)?.status !== 'PENDING') {
      // A kind without documents has nothing to release: three removals of absent files were 3 %
      // of the service's CPU per EVM signature (issue 10).
      void kind?.release?.(entry, this.deps, engine);
      engine.forget?.(entry.requestId);
    }
  }

  /**
   * The final transition, written once the disk takes it. A full or read-only config dir (issue
   * 10) refuses the DONE (its document, audit record or journal line) and the ERROR alike: the
   * request stays PENDING and the transition is tried again, backing off to RETRY_MAX_MS, so it
   * completes as soon as space returns instead of staying PENDING until a restart. Any other
   * failure of a DONE ends the request ERROR, as before. A stop ends the retries: what is left
   * is PENDING on disk and the next start resumes it.
   */
  private async settleDurably(entry: RequestEntry, settle: () => Promise<unknown>, failing: boolean, auditDigest: string | null): Promise<void> {
    const id = entry.requestId;
    let attempt = settle;
    let said = false;
    for (let delay = RETRY_FIRST_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      try {
        await attempt();
      } catch (error) {
        if (isStorageError(error) && !said) {
          said = true;
          this.deps.warn?.(`${id}: ${error.message}; it stays PENDING and its final state is written as soon as the disk takes it`);
        }
        if (!isStorageError(error)) {
          if (failing) return;
          // The DONE failed for a reason of its own: the request ends ERROR with it.
          failing = true;
          attempt = () => this.registry.fail(id, error, auditDigest);
          continue;
        }
      }
      // Written, or ended by another transition (a timeout), or being written by one: checked
      // again after the pause, so a transition that another writer then failed is retried here.
      if (this.registry.get(id)?.status !== 'PENDING' || this.stopping) return;
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
    }
  }

  /**
   * After `drain`: the attempts still running were stopped cleanly, not cut short by a crash, so
   * they are given back (CONTRACT: requests still PENDING after SIGTERM are resumed by the next
   * start, however many clean stops they have seen). Never rejects.
   */
  async releaseUnfinished(): Promise<void> {
    const ids = [...this.counted].filter((id) => this.inFlight.has(id) && this.registry.get(id)?.status === 'PENDING');
    await Promise.all(ids.map((id) => this.registry.releaseAttempt(id).catch(() => undefined)));
  }

  /** Waits for in-flight jobs, at most `ms`; what is left stays PENDING for the next start. */
  async drain(ms: number): Promise<void> {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values()]),
      new Promise((r) => {
        timer = setTimeout(r, ms);
      }),
    ]);
    clearTimeout(timer);
  }
}

/**
 * Tests only (LOCALSIGN_TEST_FAULT=kill-in-job, see config/env.ts): dies where the job would
 * sign, as V8 does on an abort no handler can catch, once the request is durable (as it is when
 * its 202 was sent). SIGKILL rather than process.abort(): the same death, without a core dump.
 */
async function killForTest(created: Promise<void>): Promise<void> {
  await created.catch(() => undefined);
  process.kill(process.pid, 'SIGKILL');
}
