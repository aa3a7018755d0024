import { LocalsignError } from '../domain/errors';
import type { StartWorker, WorkerGone, WorkerHandle } from './handles';
import { cancelMessage, errorFromWorker, type WorkerAnswer } from './protocol';

/**
 * Limits of a pool whose tasks read documents from strangers: a task that runs past
 * `deadlineMs` ends its worker, as does a worker that reaches its heap limit (the heap limit
 * itself is the worker's own, set where it starts: handles.ts); the task fails with the error
 * `overLimit` makes and the next task starts a fresh worker. Neither the event loop nor the other
 * tasks notice.
 */
export interface PoolLimits {
  /**
   * Wall-clock time one task may run, from the moment its worker starts it: a fresh worker's own
   * start-up (a process spawning, slow on a loaded machine) is not the document's time.
   */
  deadlineMs: number;
  /** How long a fresh worker may take to say it listens; WORKER_START_LIMIT_MS unless set. */
  startMs?: number;
  /** The error a task over a limit fails with. */
  overLimit: (limit: 'time' | 'memory') => LocalsignError;
}

export interface PoolOptions<T, R> {
  /** What the workers are, for messages ("the signing worker stopped …"). */
  name: string;
  workers: number;
  /** Starts a worker; null runs every task on the calling thread (tests from TypeScript source). */
  start: StartWorker | null;
  /** Runs a task on the calling thread when `start` is null. */
  inline: (task: T) => R | Promise<R>;
  idleMs?: number;
  /** Tasks kept posted ahead per worker (see PIPELINE_DEPTH). */
  depth?: number;
  /**
   * Workers that may run beyond `workers` for an owner with nothing running, while the others are
   * busy with other owners' tasks (see pump). 0: none.
   */
  burst?: number;
  /**
   * Once `keepWarm` is called: workers kept running however long they are idle, each started ahead
   * of need (and again when one ends) with `warmTask` run in it, so no request pays a worker's start
   * and its first-time work (loading the engine, the curves' tables). 0: none.
   */
  keep?: number;
  /** What a worker kept warm runs first, its answer ignored. */
  warmTask?: () => T;
  /** What `tidy` posts to each idle worker (a full collection), its answer ignored. */
  tidyTask?: () => T;
  limits?: PoolLimits;
}

interface Job<T, R> {
  task: T;
  resolve: (v: R) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  /** Whose task it is (an application key; '' for the service's own work): see pump. */
  owner: string;
  /**
   * A task of the pool's own (a warm task, or a tidy one): not a request's work, and a worker that
   * asks to retire after it is not replaced for that.
   */
  warm?: true;
  /** A tidy task: the worker's idle time goes on counting through it (it ends as if it never ran). */
  tidy?: true;
  /** Its number among the tasks posted to its worker (serveWorker counts the same way). */
  seq?: number;
}

interface Slot<T, R> {
  worker: WorkerHandle;
  /** Tasks posted to this worker and not answered yet, oldest first (a worker answers in order). */
  inFlight: Job<T, R>[];
  /** Ends an idle worker (see idleMs); cleared when it gets work. */
  idle: NodeJS.Timeout | null;
  /** Ends the worker whose oldest task has run past the deadline, or that did not start in time. */
  deadline: NodeJS.Timeout | null;
  /** The worker has said it listens (WorkerEvents.ready); until then its tasks wait, unrun. */
  ready: boolean;
  /** Being ended on purpose (idle, over a limit, the pool closing): its exit is not a fault. */
  retiring: boolean;
  /** Tasks posted to this worker so far. */
  posted: number;
}

/**
 * Tasks kept posted ahead per worker. One at a time left the worker idle for every round trip
 * through a busy event loop (a trace under 64 clients on a 2-core machine: the worker idle more
 * than half the time while jobs queued for 130 ms); a few ahead keep it busy without starving the
 * other workers.
 */
const PIPELINE_DEPTH = 4;
/**
 * A desktop agent runs all day beside the user's applications, so its idle footprint counts: a
 * worker with nothing to do for this long ends (beyond the `keep` ones once keepWarm was called),
 * and the next task starts one again. The service keeps one of each kind warm, so a worker past
 * those was started for a burst of concurrent work, and its memory (a PDF worker process after a
 * load holds about 90 MiB) is let go within seconds of the burst's end. A burst that comes back
 * later starts them again, and the tasks posted to a worker still starting wait for it (a PDF
 * worker's start is about 250 ms of CPU), as they did after 30 s idle before.
 */
export const DEFAULT_IDLE_MS = 2_000;
/**
 * A worker that has not said it listens after this long is ended, and its tasks fail with an
 * error that names the worker, not the document: a start that hangs is the machine's fault.
 */
export const WORKER_START_LIMIT_MS = 30_000;

/**
 * Workers (threads or processes, handles.ts) started on first use, up to `workers`, ended when
 * idle. With `start: null` (tests from TypeScript source) tasks run inline, without limits. The
 * messages are protocol.ts's; a worker answers them with serveWorker (serve-worker.ts).
 */
export class WorkerPool<T, R> {
  private readonly slots: Slot<T, R>[] = [];
  /** Tasks waiting, per owner, each oldest first. */
  private readonly queue = new Map<string, Job<T, R>[]>();
  /** When each owner was last served (a turn number), for takeNext. */
  private readonly served = new Map<string, number>();
  private turns = 0;
  private closed = false;
  /** keepWarm was called: `keep` workers are kept started. */
  private warm = false;
  private readonly idleMs: number;
  private readonly depth: number;

  constructor(private readonly options: PoolOptions<T, R>) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.depth = options.depth ?? PIPELINE_DEPTH;
  }

  /** Workers running now. */
  get size(): number {
    return this.slots.length;
  }

  private spawn(start: StartWorker): Slot<T, R> {
    const slot = { inFlight: [], idle: null, deadline: null, ready: false, retiring: false, posted: 0 } as unknown as Slot<T, R>;
    slot.worker = start({
      ready: () => {
        slot.ready = true;
        this.armDeadline(slot);
      },
      message: (msg) => this.answered(slot, msg as WorkerAnswer<R>),
      gone: (reason) => this.lost(slot, reason),
    });
    // An idle worker does not keep the process alive; one with work does (a CLI `verify` waits).
    slot.worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private answered(slot: Slot<T, R>, msg: WorkerAnswer<R>): void {
    const job = slot.inFlight.shift();
    if (job) {
      if (msg.ok) job.resolve(msg.value);
      else job.reject(errorFromWorker(msg.error));
    }
    // A worker that says it holds too much memory after a task is replaced (serveWorker retireAboveMb);
    // not after its warm task, which a replacement would run again, and again.
    if (msg.retire && !job?.warm && slot.inFlight.length === 0) {
      this.retire(slot);
      this.pump();
      return;
    }
    this.armDeadline(slot);
    // After a tidy task, a worker's idle count goes on: one beyond the kept ones still ends on time.
    if (slot.inFlight.length === 0 && !(job?.tidy && slot.idle)) {
      slot.worker.unref();
      this.armIdle(slot);
    }
    this.pump();
  }

  /**
   * A worker that dies (an uncaught error, out of memory, a native crash) fails the task it was
   * running with a clear error instead of leaving it unanswered; the tasks posted behind it go to
   * another worker; the next task starts another.
   */
  private lost(slot: Slot<T, R>, reason: WorkerGone): void {
    if (!this.slots.includes(slot) || slot.retiring) return;
    const limits = this.options.limits;
    const error =
      'limit' in reason
        ? limits
          ? limits.overLimit('memory')
          : new LocalsignError('internal', `the ${this.options.name} ran out of memory; try again`, { type: 'signing' })
        : new LocalsignError('internal', `the ${this.options.name} stopped (${reason.message}); try again`, { type: 'signing', cause: reason.cause });
    this.endSlot(slot, error);
  }

  private armIdle(slot: Slot<T, R>): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      slot.idle = null;
      // The workers kept warm stay: the next request, in a minute or a day, finds one ready.
      if (slot.inFlight.length === 0 && !(this.warm && this.live() <= (this.options.keep ?? 0))) this.retire(slot);
    }, this.idleMs);
    slot.idle.unref();
  }

  private live(): number {
    return this.slots.filter((s) => !s.retiring).length;
  }

  /**
   * Starts workers up to `keep`, each with the warm task, and keeps that many from now on: one that
   * ends (over a limit, retired for its memory, dead) is replaced at once, off any request's path.
   */
  keepWarm(): void {
    const start = this.options.start;
    const task = this.options.warmTask;
    if (!start || !task || this.closed) return;
    this.warm = true;
    while (this.live() < (this.options.keep ?? 0)) {
      const slot = this.spawn(start);
      const job: Job<T, R> = {
        task: task(),
        resolve: () => (this.warmFailures = 0),
        // A worker that dies in its warm task (a missing engine file) is not started again at once.
        reject: () => (this.warmFailures += 1),
        owner: '',
        warm: true,
      };
      this.post(slot, job);
      this.armDeadline(slot);
    }
  }

  /**
   * Posts `tidyTask` to every worker that has started and has nothing to do: once the service is
   * idle after a burst, each worker gives back what the burst left (a full collection), as the
   * service's own isolate does (service/idle-memory.ts). A task that comes meanwhile waits for it.
   */
  tidy(): void {
    const task = this.options.tidyTask;
    if (!task || this.closed) return;
    for (const slot of this.slots) {
      if (slot.retiring || !slot.ready || slot.inFlight.length > 0) continue;
      this.post(slot, { task: task(), resolve: () => undefined, reject: () => undefined, owner: '', warm: true, tidy: true });
    }
  }

  /** Sends `job` to the worker of `slot`, numbered as the worker counts its tasks (serveWorker). */
  private post(slot: Slot<T, R>, job: Job<T, R>): void {
    slot.inFlight.push(job);
    job.seq = slot.posted++;
    slot.worker.post(job.task);
  }

  /** Warm tasks that failed in a row: the next start waits 1 s, 2 s, … up to a minute. */
  private warmFailures = 0;
  private refilling: NodeJS.Timeout | null = null;

  /** After a worker ended: the kept ones are started again, once the pool is consistent. */
  private refill(): void {
    if (!this.warm || this.closed || this.refilling) return;
    const delay = this.warmFailures === 0 ? 0 : Math.min(60_000, 1000 * 2 ** (this.warmFailures - 1));
    this.refilling = setTimeout(() => {
      this.refilling = null;
      this.keepWarm();
    }, delay);
    this.refilling.unref();
  }

  /** Ends an idle worker on purpose; the next task starts another. */
  private retire(slot: Slot<T, R>): void {
    if (!this.slots.includes(slot)) return;
    slot.retiring = true;
    if (slot.idle) clearTimeout(slot.idle);
    if (slot.deadline) clearTimeout(slot.deadline);
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.worker.terminate();
    this.refill();
  }

  /**
   * The deadline of the task the worker runs now: its oldest one, started when the previous
   * answered or, on a fresh worker, when the worker said it listens. Before that, the start limit.
   */
  private armDeadline(slot: Slot<T, R>): void {
    const limits = this.options.limits;
    if (slot.deadline) clearTimeout(slot.deadline);
    slot.deadline = null;
    const running = slot.inFlight[0];
    if (!limits || !running) return;
    if (!slot.ready) {
      const startMs = limits.startMs ?? WORKER_START_LIMIT_MS;
      slot.deadline = setTimeout(() => {
        if (slot.ready || !slot.inFlight.length) return;
        this.endSlot(slot, new LocalsignError('internal', `the ${this.options.name} did not start within ${startMs / 1000} s; try again`, { type: 'signing' }));
      }, startMs);
      slot.deadline.unref();
      return;
    }
    slot.deadline = setTimeout(() => {
      if (slot.inFlight[0] !== running) return;
      this.endSlot(slot, limits.overLimit('time'));
    }, limits.deadlineMs);
    slot.deadline.unref();
  }

  /** Ends a worker now: its running task fails with `error`, the ones posted behind it are queued again. */
  private endSlot(slot: Slot<T, R>, error: unknown): void {
    if (!this.slots.includes(slot)) return;
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.retiring = true;
    if (slot.idle) clearTimeout(slot.idle);
    if (slot.deadline) clearTimeout(slot.deadline);
    const [running, ...behind] = slot.inFlight.splice(0);
    running?.reject(error);
    for (const job of behind.reverse()) this.enqueue(job, true);
    slot.worker.terminate();
    this.pump();
    this.refill();
  }

  /**
   * Runs a task. An aborted `signal` takes a task that has not started out of the queue, or
   * cancels it in the worker it was posted to behind another task: either way it never runs.
   * One already running ends its worker, so its work really stops.
   */
  run(task: T, o: { signal?: AbortSignal; owner?: string } = {}): Promise<R> {
    if (o.signal?.aborted) return Promise.reject(o.signal.reason);
    if (!this.options.start) {
      try {
        return Promise.resolve(this.options.inline(task));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.closed) return Promise.reject(new LocalsignError('internal', 'the service is stopping; try again', { type: 'signing' }));
    return new Promise<R>((resolve, reject) => {
      const job: Job<T, R> = { task, resolve, reject, signal: o.signal, owner: o.owner ?? '' };
      if (o.signal) {
        const signal = o.signal;
        const onAbort = () => this.cancel(job, signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        const done = () => signal.removeEventListener('abort', onAbort);
        job.resolve = (v) => (done(), resolve(v));
        job.reject = (e) => (done(), reject(e));
      }
      this.enqueue(job);
      this.pump();
    });
  }

  private enqueue(job: Job<T, R>, first = false): void {
    const waiting = this.queue.get(job.owner);
    if (!waiting) this.queue.set(job.owner, [job]);
    else if (first) waiting.unshift(job);
    else waiting.push(job);
  }

  /** Tasks of `owner` posted to workers and not answered yet. */
  private running(owner: string): number {
    let n = 0;
    for (const s of this.slots) for (const j of s.inFlight) if (j.owner === owner) n += 1;
    return n;
  }

  private cancel(job: Job<T, R>, reason: unknown): void {
    const waiting = this.queue.get(job.owner);
    const queued = waiting ? waiting.indexOf(job) : -1;
    if (waiting && queued >= 0) {
      waiting.splice(queued, 1);
      if (waiting.length === 0) this.queue.delete(job.owner);
      job.reject(reason);
      return;
    }
    const slot = this.slots.find((s) => s.inFlight.includes(job));
    if (!slot) return;
    if (slot.inFlight[0] === job) this.endSlot(slot, reason);
    else {
      // Posted behind another task: the worker skips it when its turn comes (serveWorker reads
      // the cancel before it starts a task) and answers in its place, keeping the order; the
      // caller hears now. Should the worker end first, pump drops it as aborted.
      slot.worker.post(cancelMessage(job.seq!));
      job.reject(reason);
    }
  }

  /**
   * Posts waiting tasks to workers. Owners take turns (the first waiting owner is served, then goes
   * to the back), so one application's many tasks wait behind each other, not in front of
   * everyone's. An owner with nothing running may also start one of `burst` workers beyond
   * `workers` when every worker is busy: another application's slow documents (each may hold a
   * worker up to the deadline) then never hold its small one.
   */
  private pump(): void {
    const start = this.options.start;
    if (!start || this.closed) return;
    for (;;) {
      if (this.queue.size === 0) return;
      // Least-loaded first, so work spreads across workers before any pipeline fills; a new
      // worker only when every running one has work and the pool is not full. A worker still in
      // its warm task takes the tasks posted behind it, up to its depth, and no new one starts for
      // them: it is ready sooner than a worker started now, which would do the same first-time
      // work on the other core while the service's own start-up needs it (the first request after
      // start).
      let slot: Slot<T, R> | undefined;
      for (const s of this.slots) if (!s.retiring && s.inFlight.length < this.depth + warmIn(s) && (!slot || busyIn(s) < busyIn(slot))) slot = s;
      const live = this.slots.filter((s) => !s.retiring).length;
      if ((!slot || (busyIn(slot) > 0 && warmIn(slot) === 0)) && live < this.options.workers) slot = this.spawn(start);
      if (!slot) slot = this.burstFor(start, live);
      if (!slot) return;
      const job = this.takeNext();
      if (!job) return;
      if (job.signal?.aborted) {
        job.reject(job.signal.reason);
        continue;
      }
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = null;
      slot.worker.ref();
      this.post(slot, job);
      if (slot.inFlight.length === 1) this.armDeadline(slot);
    }
  }

  /**
   * The next task in turn: of the waiting owner with the fewest tasks running, and among those the
   * one served longest ago; its oldest.
   */
  private takeNext(): Job<T, R> | undefined {
    let pick: string | null = null;
    let pickRunning = Infinity;
    let pickServed = Infinity;
    for (const owner of this.queue.keys()) {
      const running = this.running(owner);
      const served = this.served.get(owner) ?? -1;
      if (running < pickRunning || (running === pickRunning && served < pickServed)) [pick, pickRunning, pickServed] = [owner, running, served];
    }
    if (pick === null) return undefined;
    const waiting = this.queue.get(pick)!;
    const job = waiting.shift();
    if (waiting.length === 0) this.queue.delete(pick);
    this.served.set(pick, this.turns++);
    // Owners that come and go (application keys) are not remembered for ever.
    if (this.served.size > 1024) for (const owner of this.served.keys()) if (!this.queue.has(owner)) this.served.delete(owner);
    return job;
  }

  /** A worker beyond `workers` when a waiting owner has nothing running and the burst allows one. */
  private burstFor(start: StartWorker, live: number): Slot<T, R> | undefined {
    if (live >= this.options.workers + (this.options.burst ?? 0)) return undefined;
    for (const owner of this.queue.keys()) if (this.running(owner) === 0) return this.spawn(start);
    return undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refilling) clearTimeout(this.refilling);
    for (const s of this.slots) {
      s.retiring = true;
      if (s.idle) clearTimeout(s.idle);
      if (s.deadline) clearTimeout(s.deadline);
      s.worker.terminate();
    }
    this.slots.length = 0;
  }
}

/** Tasks of a worker's that are the pool's own (a warm task, the first it runs; a tidy task, only when it has nothing else): at most one. */
function warmIn(slot: { inFlight: { warm?: true }[] }): number {
  return slot.inFlight.filter((j) => j.warm).length;
}

/** Tasks of a worker's that are requests' work. */
function busyIn(slot: { inFlight: { warm?: true }[] }): number {
  return slot.inFlight.length - warmIn(slot);
}
