import { Worker } from 'node:worker_threads';
import { LocalsignError, SigningError, type ErrorKind } from '../errors/errors';
import { runSignTask, type SignTask, type SignTaskResult } from './sign-tasks';
import type { WorkerEntry } from './worker-entry';

interface Job {
  task: SignTask;
  resolve: (v: SignTaskResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  /** Tasks posted to this worker and not answered yet, oldest first (a worker answers in order). */
  inFlight: Job[];
  /** Ends an idle worker (see IDLE_MS); cleared when it gets work. */
  idle: NodeJS.Timeout | null;
  /** Being ended on purpose (idle, or the pool closing): its exit is not a fault. */
  retiring: boolean;
}

/**
 * Tasks kept posted ahead per worker. One at a time left the worker idle for every round trip
 * through a busy event loop (a trace under 64 clients: the worker idle more than half the time
 * while jobs queued for 130 ms); a few ahead keep it busy without starving the other workers.
 */
const PIPELINE_DEPTH = 4;
/**
 * A desktop agent runs all day beside the user's applications (issue 10: idle footprint): a
 * worker with nothing to do for this long ends, and the next task starts one again.
 */
const DEFAULT_IDLE_MS = 30_000;

/**
 * Signing runs off the event loop (issue 2: ≥2,000 EVM signatures/s while HTTP stays responsive).
 * Workers start on first use, up to `workers`, and end when idle; see worker-entry.ts for what
 * they run. With `entry: null` (tests from TypeScript source) tasks run inline.
 */
export class SignWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private closed = false;
  private readonly idleMs: number;

  constructor(private readonly options: { workers: number; entry: WorkerEntry; idleMs?: number }) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Workers running now. */
  get size(): number {
    return this.slots.length;
  }

  private spawn(entry: NonNullable<WorkerEntry>): Slot {
    const workerData = { role: 'sign-worker' };
    const worker = entry.kind === 'file' ? new Worker(entry.path, { workerData }) : new Worker(entry.code, { eval: true, workerData });
    const slot: Slot = { worker, inFlight: [], idle: null, retiring: false };
    worker.on('message', (msg: WorkerAnswer) => {
      const job = slot.inFlight.shift();
      if (job) {
        if (msg.ok) job.resolve(msg.value);
        else job.reject(errorFromWorker(msg.error));
      }
      if (slot.inFlight.length === 0) this.armIdle(slot);
      this.pump();
    });
    // A worker that dies (an uncaught error, or exit: out of memory, a native crash) fails the
    // tasks it held with a clear error instead of leaving them unanswered; the next task starts
    // another.
    const lost = (reason: string, cause?: unknown) => {
      if (!this.slots.includes(slot)) return;
      this.slots.splice(this.slots.indexOf(slot), 1);
      if (slot.idle) clearTimeout(slot.idle);
      if (!slot.retiring) for (const job of slot.inFlight.splice(0)) job.reject(new SigningError(`the signing worker stopped (${reason}); try again`, { cause }));
      this.pump();
    };
    worker.on('error', (error) => lost(error.message.split('\n')[0]!.slice(0, 200), error));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private armIdle(slot: Slot): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.inFlight.length > 0) return;
      slot.retiring = true;
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idle.unref();
  }

  run(task: SignTask): Promise<SignTaskResult> {
    if (!this.options.entry) {
      try {
        return Promise.resolve(runSignTask(task));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.closed) return Promise.reject(new SigningError('the service is stopping; try again'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    const entry = this.options.entry;
    if (!entry || this.closed) return;
    while (this.queue.length > 0) {
      // Least-loaded first, so work spreads across workers before any pipeline fills; a new
      // worker only when every running one has work and the pool is not full.
      let slot: Slot | undefined;
      for (const s of this.slots) if (!s.retiring && s.inFlight.length < PIPELINE_DEPTH && (!slot || s.inFlight.length < slot.inFlight.length)) slot = s;
      if ((!slot || slot.inFlight.length > 0) && this.slots.filter((s) => !s.retiring).length < this.options.workers) slot = this.spawn(entry);
      if (!slot) return;
      const job = this.queue.shift()!;
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = null;
      slot.inFlight.push(job);
      slot.worker.postMessage(job.task);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) {
      s.retiring = true;
      if (s.idle) clearTimeout(s.idle);
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

/** An error as it crosses the thread boundary: its kind and type survive (a ChipError stays a 502). */
interface WorkerError {
  kind: ErrorKind;
  type: string;
  message: string;
}

type WorkerAnswer = { ok: true; value: SignTaskResult } | { ok: false; error: WorkerError };

export function errorToWorker(error: unknown): WorkerError {
  if (error instanceof LocalsignError) return { kind: error.kind, type: error.type, message: error.message };
  return { kind: 'internal', type: 'signing', message: error instanceof Error ? error.message : String(error) };
}

export function errorFromWorker(e: WorkerError): LocalsignError {
  return new LocalsignError(e.kind, e.message, { type: e.type });
}

/** Body of a worker thread: answer each task with its result. */
export function serveSignWorker(port: import('node:worker_threads').MessagePort): void {
  port.on('message', (task: SignTask) => {
    let answer: WorkerAnswer;
    try {
      answer = { ok: true, value: runSignTask(task) };
    } catch (error) {
      answer = { ok: false, error: errorToWorker(error) };
    }
    port.postMessage(answer);
  });
}
