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
  busy: Job | null;
}

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
    const slot: Slot = { worker, busy: null };
    worker.on('message', (msg: { ok: true; value: SignTaskResult } | { ok: false; message: string }) => {
      const job = slot.busy;
      slot.busy = null;
      if (job) {
        if (msg.ok) job.resolve(msg.value);
        else job.reject(new SigningError(msg.message));
      }
      this.pump();
    });
    worker.on('error', (error) => {
      slot.busy?.reject(error);
      slot.busy = null;
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
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy) continue;
      const job = this.queue.shift()!;
      slot.busy = job;
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
