import { Worker } from 'node:worker_threads';
import { SigningError } from '../errors/errors';
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
}

/**
 * Tasks kept posted ahead per worker. One at a time left the worker idle for every round trip
 * through a busy event loop (a trace under 64 clients: the worker idle more than half the time
 * while jobs queued for 130 ms); a few ahead keep it busy without starving the other workers.
 */
const PIPELINE_DEPTH = 4;

/**
 * Signing runs off the event loop (issue 2: ≥2,000 EVM signatures/s while HTTP stays responsive).
 * Workers are the bundle itself started with workerData.role = 'sign-worker' (src/main.ts); see
 * worker-entry.ts. With `entry: null` (tests from TypeScript source) tasks run inline.
 */
export class SignWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private closed = false;

  constructor(options: { workers: number; entry: WorkerEntry }) {
    if (!options.entry) return;
    for (let i = 0; i < options.workers; i += 1) this.spawn(options.entry);
  }

  get size(): number {
    return this.slots.length;
  }

  private spawn(entry: NonNullable<WorkerEntry>): void {
    const workerData = { role: 'sign-worker' };
    const worker = entry.kind === 'file' ? new Worker(entry.path, { workerData }) : new Worker(entry.code, { eval: true, workerData });
    const slot: Slot = { worker, inFlight: [] };
    worker.on('message', (msg: { ok: true; value: SignTaskResult } | { ok: false; message: string }) => {
      const job = slot.inFlight.shift();
      if (job) {
        if (msg.ok) job.resolve(msg.value);
        else job.reject(new SigningError(msg.message));
      }
      this.pump();
    });
    worker.on('error', (error) => {
      for (const job of slot.inFlight.splice(0)) job.reject(error);
      this.slots.splice(this.slots.indexOf(slot), 1);
      if (!this.closed) this.spawn(entry);
      this.pump();
    });
    worker.unref();
    this.slots.push(slot);
  }

  run(task: SignTask): Promise<SignTaskResult> {
    if (this.slots.length === 0) {
      try {
        return Promise.resolve(runSignTask(task));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    // Least-loaded first, so work spreads across workers before any pipeline fills.
    while (this.queue.length > 0) {
      let slot: Slot | undefined;
      for (const s of this.slots) if (s.inFlight.length < PIPELINE_DEPTH && (!slot || s.inFlight.length < slot.inFlight.length)) slot = s;
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.inFlight.push(job);
      slot.worker.postMessage(job.task);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

/** Body of a worker thread: answer each task with its result. */
export function serveSignWorker(port: import('node:worker_threads').MessagePort): void {
  port.on('message', (task: SignTask) => {
    try {
      port.postMessage({ ok: true, value: runSignTask(task) });
    } catch (error) {
      port.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
}
