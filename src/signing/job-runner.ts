import { LocalsignError } from '../errors/errors';
import type { RequestRegistry } from '../requests/registry';
import type { RequestEntry } from '../store/request-store';
import type { Job, JobDeps } from './job-types';
import { Slots } from './slots';

/**
 * Loaded on first use: the PAdES job pulls in pdf-lib and fontkit, whose start-up cost (tens of
 * ms of table decompression) must not delay `serve` (issue 2: start-up ≤ 200 ms).
 */
const JOBS: Record<RequestEntry['kind'], () => Promise<Job>> = {
  pades: () => import('./pades-job').then((m) => m.runPadesJob),
  blockchain: () => import('./evm-job').then((m) => m.runEvmJob),
};

/** Starts loading the PAdES engine in the background once the service listens. */
export function preloadJobs(): void {
  void JOBS.pades().catch(() => undefined);
}

/**
 * Runs accepted requests to DONE or ERROR. A request never stays PENDING forever: each run races
 * the request timeout (CONTRACT: default 10 minutes, counted from creation, so a resumed request
 * does not get a fresh allowance), and in-flight runs are tracked so shutdown can wait for them.
 */
export class JobRunner {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** PAdES jobs running at once (each holds its document, input and output, in memory). */
  private readonly padesSlots: Slots;

  constructor(
    private readonly registry: RequestRegistry,
    private readonly deps: JobDeps,
    private readonly timeoutMs: number,
    padesConcurrency = 4,
  ) {
    this.padesSlots = new Slots(padesConcurrency);
  }

  get active(): number {
    return this.inFlight.size;
  }

  /**
   * Runs a request. `created` settles when its PENDING record is durable: signing may start
   * before (it overlaps the fsync), the final transition never does.
   */
  start(entry: RequestEntry, created: Promise<void> = Promise.resolve()): void {
    if (this.inFlight.has(entry.request_id)) return;
    const run = this.run(entry, created).finally(() => this.inFlight.delete(entry.request_id));
    this.inFlight.set(entry.request_id, run);
  }

  private async run(entry: RequestEntry, created: Promise<void>): Promise<void> {
    const remaining = Date.parse(entry.created_at) + this.timeoutMs - this.deps.now().getTime();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new LocalsignError('upstream', `signing did not complete within ${Math.round(this.timeoutMs / 1000)} s`, { type: 'timeout' })),
        Math.max(0, remaining),
      );
      timer.unref?.();
    });
    // Observed here so a timeout firing while the job module still loads is not an unhandled
    // rejection; Promise.race below still sees it.
    timeout.catch(() => undefined);
    let settle: () => Promise<unknown>;
    try {
      const job = await JOBS[entry.kind]();
      const release = entry.kind === 'pades' ? await this.acquirePadesSlot(timeout) : () => undefined;
      let outcome;
      try {
        outcome = await Promise.race([job(entry, this.deps), timeout]);
      } finally {
        release();
      }
      settle = () => this.registry.complete(entry.request_id, outcome.result, outcome.digestHex, outcome.persist);
    } catch (error) {
      settle = () => this.fail(entry, error);
    } finally {
      clearTimeout(timer);
    }
    try {
      await created;
    } catch {
      return; // the PENDING record never reached the disk: the caller got an error, not a 202
    }
    await settle().catch((error: unknown) => this.fail(entry, error));
    // Once final, the document kept for a restart is no longer needed (this runs after `created`,
    // so the work file's own write has finished). If the final state could not be written (the
    // journal closed at shutdown), the request is still PENDING and keeps its document to resume.
    if (this.registry.get(entry.request_id)?.status !== 'PENDING') this.deps.removeWorkFile(entry.request_id);
  }

  /** Waits for a PAdES slot within the request's time; a slot granted after the timeout is given back. */
  private async acquirePadesSlot(timeout: Promise<never>): Promise<() => void> {
    const acquiring = this.padesSlots.acquire();
    try {
      return await Promise.race([acquiring, timeout]);
    } catch (error) {
      void acquiring.then((release) => release());
      throw error;
    }
  }

  private fail(entry: RequestEntry, error: unknown): Promise<unknown> {
    const digest = entry.kind === 'blockchain' ? String(entry.params.tx_hash) : null;
    return this.registry.fail(entry.request_id, error, digest).catch(() => undefined);
  }

  /** Waits for in-flight jobs, at most `ms`; what is left stays PENDING for the next start. */
  async drain(ms: number): Promise<void> {
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
