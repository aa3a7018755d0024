import { isStorageError, LocalsignError } from '../domain/errors';
import type { RequestRegistry } from '../requests/registry';
import type { RequestEntry } from '../store/request-store';
import type { SigningEngine } from './engine';
import type { AcceptedCatalog, JobDeps, JobOutcome, JobRun } from './job-types';
import type { KindJob, SignatureKind } from './kind';
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

/** A run's final transition, and the result it may already have written (removed if no DONE can follow). */
interface Settlement {
  failing: boolean;
  write: () => Promise<unknown>;
  written?: Promise<void> | null;
  discard?: (() => Promise<void>) | null;
}

/**
 * A run's timeout (CONTRACT: never PENDING for ever; a timestamp authority that never answers ends
 * it then), as an AbortSignal that reaches every queue and step the job waits in (the document
 * slots, the worker pools, the chip's queue, PDF workers, HTTP calls), so the request ends ERROR at
 * once, even while it waits behind a busy token.
 *
 * What it must not do is hide a signature: an audit record must never say ERROR for a signature
 * that exists. Nothing signs without `signing()` first (the PKCS#11 chip calls it
 * right before C_Sign, after its last look at the signal), and `signing()` refuses once the run
 * is aborted: a request that has ended never reaches the token. Between `signing()` and
 * `signed()` the token is making the signature and nothing can stop it, so a timeout then waits
 * for its outcome (at most SIGNING_GRACE_MS): a token error ends the request with that error, and
 * a signature ends it ERROR at once, its audit record naming the digest signed. Once `signed()`
 * was called, any ERROR names it.
 */
class RunClock {
  private readonly abort = new AbortController();
  /** Rejects with the abort reason: raced against each step, for one that ignores the signal. */
  readonly expired: Promise<never>;
  private signingDigest: string | null = null;
  /** The digest of a signature made in this run, once `signed()` said so. */
  signedDigest: string | null = null;
  private overdue = false;
  private abandoned = false;
  private timer: NodeJS.Timeout;

  constructor(remainingMs: number, private readonly timedOut: () => LocalsignError) {
    this.expired = new Promise<never>((_, reject) => {
      this.abort.signal.addEventListener('abort', () => reject(this.abort.signal.reason), { once: true });
    });
    // Observed here so a timeout firing while the job module still loads is not an unhandled
    // rejection; the races still see it.
    this.expired.catch(() => undefined);
    this.timer = setTimeout(() => this.onTimeout(), Math.max(0, remainingMs));
    this.timer.unref?.();
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  private onTimeout(): void {
    this.overdue = true;
    if (this.signingDigest === null || this.signedDigest !== null) return this.abort.abort(this.timedOut());
    this.timer = setTimeout(() => {
      this.abandoned = this.signedDigest === null;
      this.abort.abort(this.timedOut());
    }, SIGNING_GRACE_MS);
    this.timer.unref?.();
  }

  /** JobRun.signing. */
  readonly signing = (digestHex: string): void => {
    this.abort.signal.throwIfAborted();
    this.signingDigest = digestHex;
  };

  /** JobRun.signed. */
  readonly signed = (digestHex: string): void => {
    this.signedDigest = digestHex;
    if (this.overdue) this.abort.abort(this.timedOut());
    this.abort.signal.throwIfAborted();
  };

  /** The run failed: everything it still waits in stops. */
  fail(error: unknown): void {
    this.abort.abort(error);
  }

  /** A failed run's signature to name: the one made, or one a token never answered for (it may have signed). */
  digestMade(): string | null {
    return this.signedDigest ?? (this.abandoned ? this.signingDigest : null);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

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
  /**
   * Jobs that hold a document, running at once: each may hold its document in memory and works in
   * the PDF workers. One that waits for a slot lets its document wait on disk (`queued`:
   * DocumentStore.spill), so a burst of large documents does not wait in memory.
   */
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
    // Awaited only once the job has run: a record the disk refused (disk full) must not
    // be an unhandled rejection meanwhile, which ends the process.
    created.catch(() => undefined);
    const run = this.run(entry, created, resumed, accepted).finally(() => {
      this.inFlight.delete(id);
      this.counted.delete(id);
    });
    this.inFlight.set(id, run);
  }

  /**
   * One run, in four steps: the job in its slot under the request's timeout (`work`), its outcome
   * as the final transition to write (`completion`, or a failure naming any signature made), that
   * transition written once the PENDING record is durable (`settleDurably`), and what the request
   * kept for a restart let go once it is final.
   */
  private async run(entry: RequestEntry, created: Promise<void>, resumed: boolean, accepted?: AcceptedCatalog): Promise<void> {
    const clock = new RunClock(Date.parse(entry.createdAt) + this.timeoutMs - this.deps.now().getTime(), () => new LocalsignError('upstream', `signing did not complete within ${Math.round(this.timeoutMs / 1000)} s`, { type: 'timeout' }));
    let job: KindJob | null = null;
    let engine: SigningEngine | null = null;
    let settlement: Settlement;
    try {
      // What is signed and who signs: the request's kind, and the engine of the credential it was
      // accepted with (params.engine). A name this build does not know ends the request ERROR.
      const kind = this.deps.kinds(entry.kind);
      engine = this.deps.engines(entry.params.engine);
      job = await kind.job();
      const run: JobRun = { engine, signal: clock.signal, resumed, accepted, signing: clock.signing, signed: clock.signed };
      settlement = this.completion(entry, await this.work(entry, kind, job, run, clock.expired, created));
    } catch (error) {
      clock.fail(error);
      const digest = clock.digestMade() ?? job?.auditDigest(entry) ?? null;
      settlement = { failing: true, write: () => this.registry.fail(entry.requestId, error, digest) };
    } finally {
      clock.stop();
      // The request's own chip PIN is over with its run, whatever happened.
      accepted?.chipPin?.fill(0);
    }
    try {
      await created;
    } catch (error) {
      // No DONE can follow: a result already written goes.
      if (settlement.written && settlement.discard) await settlement.written.then(settlement.discard, () => undefined);
      // The PENDING record never reached the disk: the caller got an error, not a 202.
      if (!this.registry.get(entry.requestId)) return;
      // It did, but the document did not (a full disk takes a short line, not a document): the
      // caller got the error, and the request must not stay PENDING for the rest of this run.
      settlement = { failing: true, write: () => this.registry.fail(entry.requestId, error, job?.auditDigest(entry) ?? null) };
    }
    await this.settleDurably(entry, settlement.write, settlement.failing, clock.signedDigest ?? job?.auditDigest(entry) ?? null);
    // Once final, the documents kept for a restart are no longer needed (this runs after
    // `created`, so the work file's own write has finished). If the final state could not be
    // written (the journal closed at shutdown), the request is still PENDING and keeps them.
    if (this.registry.get(entry.requestId)?.status !== 'PENDING' && engine) {
      // A kind without documents has nothing to release: three removals of absent files were 3 %
      // of the service's CPU per EVM signature (measured on a 2-core machine).
      void job?.release?.(entry, this.deps, engine);
      engine.forget?.(entry.requestId);
    }
  }

  /**
   * The job, in a document slot when its kind holds a document (one that must wait for its slot
   * lets its document wait on disk), raced against the timeout (`expired`) so that even a step
   * that ignores the signal ends with it. The slot is given back when the job's work has stopped,
   * not when the timeout ended its request: its document and its PDF worker are in use
   * until then.
   */
  private async work(entry: RequestEntry, kind: SignatureKind, job: KindJob, run: JobRun, expired: Promise<never>, created: Promise<void>): Promise<JobOutcome> {
    if (kind.document && !this.documentSlots.free) job.queued?.(entry, this.deps);
    const release = kind.document ? await this.documentSlots.acquire(run.signal) : () => undefined;
    let work: Promise<JobOutcome> | null = null;
    try {
      // A resume that only waits for a remote engine's answer does no local work a crash could
      // repeat, so it is not an attempt (a phone approval may span several restarts).
      if (run.resumed && !(run.engine.remote && (await job.digestOut(entry, this.deps)))) {
        const attempt = this.registry.recordAttempt(entry.requestId);
        attempt.catch(() => undefined); // observed even when the timeout wins the race
        await Promise.race([attempt, expired]);
        this.counted.add(entry.requestId);
      }
      // Test build only (config.ts testFaultOf): dropped from the release bundle.
      TEST_FAULT: if (this.deps.testFault === 'kill-in-job') await killForTest(created);
      // A digest leaves the machine (a remote engine) only once its PENDING record is durable
      // and visible: the answer may be pushed at once, and /receive must find the request (a
      // push before that was a 404 under load), and a crash must not forget a request that is
      // already being signed out there.
      if (run.engine.remote) await Promise.race([created, expired]);
      work = job.run(entry, this.deps, run);
      return await Promise.race([work, expired]);
    } finally {
      if (work) void work.then(release, release);
      else release();
    }
  }

  /**
   * A job's outcome as the DONE to write. The result is written now, while the PENDING record and
   * the input may still be on their way to the disk (on a small PDF the result's own fsync would
   * wait for theirs); the DONE record is written only after all of them (`run`).
   */
  private completion(entry: RequestEntry, outcome: JobOutcome): Settlement {
    const { persist, discard } = outcome;
    let early: Promise<void> | null = persist ? persist() : null;
    early?.catch(() => undefined);
    return {
      failing: false,
      written: early,
      discard: discard ?? null,
      write: () => {
        // A retry after a refused write (settleDurably) writes again.
        const write = early ?? persist?.();
        early = null;
        return this.registry.complete(entry.requestId, outcome.result, outcome.digestHex, write ? () => write : undefined);
      },
    };
  }

  /**
   * The final transition, written once the disk takes it. A full or read-only config dir
   * refuses the DONE (its document, audit record or journal line) and the ERROR alike: the
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
