import type { MessagePort } from 'node:worker_threads';
import { cancelledSeq, errorToWorker, READY, type WorkerAnswer } from './protocol';

/**
 * The worker's side of the protocol (protocol.ts): the body of a signing thread (sign-worker.ts)
 * and of a PDF worker process (pdf-worker.ts), the pool (pool.ts) on the other side.
 */

/** Where a worker hears its tasks and answers: a thread's parent port, or a child process's IPC channel. */
export interface TaskChannel {
  onTask(listener: (task: unknown) => void): void;
  answer(message: unknown): void;
}

export function threadChannel(port: MessagePort): TaskChannel {
  return { onTask: (listener) => void port.on('message', listener), answer: (m) => port.postMessage(m) };
}

/** A child process's IPC channel; the process ends when its parent goes (the channel closes). */
export function processChannel(proc: NodeJS.Process): TaskChannel {
  proc.on('disconnect', () => proc.exit(0));
  return {
    onTask: (listener) => {
      proc.on('message', listener);
      // Messages sent before this listener existed would be lost: the pool waits for this.
      proc.send!(READY as never);
    },
    answer: (m) => void proc.send!(m as never),
  };
}

/**
 * When a worker measures its resident memory for `retireAboveMb`: after a task that took at least
 * LONG_TASK_MS (a large document, which is what grows a worker) and otherwise at most every
 * MEMORY_CHECK_MS. `process.memoryUsage.rss()` reads /proc: 0.2 ms, 8 % of a PDF worker's time
 * per small PDF when it ran after every task (measured on a 2-core machine).
 */
export const MEMORY_CHECK_MS = 1000;
export const LONG_TASK_MS = 50;

export interface ServeWorkerOptions {
  /** Ask to be replaced when resident memory is above this after a task. */
  retireAboveMb?: number;
  /** Memory the worker keeps on purpose between tasks (reused-buffers.ts), not counted for `retireAboveMb`. */
  keptBytes?: () => number;
  /** For tests: resident memory in bytes, and the clock (ms). */
  rss?: () => number;
  now?: () => number;
}

/** What a task's runner may ask of the worker's queue. */
export interface TaskQueue {
  /** Tasks received after the running one that have not started yet. */
  waiting(): number;
}

/**
 * Body of a worker: answer each task, in order, with what `run` gives; a task the pool cancelled
 * before its turn is answered without running.
 */
export function serveWorker<T, R>(port: TaskChannel, run: (task: T, queue: TaskQueue) => R | Promise<R>, o: ServeWorkerOptions = {}): void {
  const rss = o.rss ?? (() => process.memoryUsage.rss());
  const now = o.now ?? (() => performance.now());
  let measuredAt = -Infinity;
  // One at a time and in order: the pool matches answers to tasks by order.
  let chain = Promise.resolve();
  let received = 0;
  /** The number of the next task to start: a cancel below it came too late. */
  let next = 0;
  const cancelled = new Set<number>();
  const queue: TaskQueue = { waiting: () => received - next };
  port.onTask((message) => {
    const cancel = cancelledSeq(message);
    if (cancel !== null) {
      if (cancel >= next) cancelled.add(cancel);
      return;
    }
    const seq = received++;
    chain = chain.then(async () => {
      // One turn of the event loop first: the messages already sent (a cancel of this task, sent
      // while it waited behind another) are read before it starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      next = seq + 1;
      if (cancelled.delete(seq)) {
        // Its caller has its answer already (pool.cancel); this one keeps the order.
        port.answer({ ok: false, error: { kind: 'internal', type: 'signing', message: 'cancelled before it started' } } satisfies WorkerAnswer<R>);
        return;
      }
      let answer: WorkerAnswer<R>;
      const started = now();
      try {
        answer = { ok: true, value: await run(message as T, queue) };
      } catch (error) {
        answer = { ok: false, error: errorToWorker(error) };
      }
      const ended = now();
      if (o.retireAboveMb !== undefined && (ended - started >= LONG_TASK_MS || ended - measuredAt >= MEMORY_CHECK_MS)) {
        measuredAt = ended;
        if (rss() - (o.keptBytes?.() ?? 0) > o.retireAboveMb * 1024 * 1024) answer.retire = true;
      }
      port.answer(answer);
    });
  });
}
