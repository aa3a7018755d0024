/**
 * The two kinds of worker a pool runs tasks in: threads (signing: keys and digests, our own data,
 * where sharing memory is what makes 2,000 signatures/s possible) and processes (the PDF engine,
 * which reads documents from strangers).
 *
 * Why PDF work is not in threads with `resourceLimits`, the obvious first design: V8 grants a
 * thread at its heap limit only 16 MiB of leeway (node_worker.cc NearHeapLimit), and an allocation
 * larger than that, such as an array or a Map doubling its backing store, is a fatal out-of-memory
 * error of the whole process, not of the thread. `node test/bench/worker-oom.mjs` shows it: a
 * thread limited to 64 MiB doing `a.push(i)` in a loop aborts the process (Node 20 and the Node 22
 * of the single executable alike). A child process with `--max-old-space-size` dies alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerEnvironment } from '../config/env';
import type { ProcessEntry, WorkerEntry } from './entry';
import { isReady } from './protocol';
import { nodeOptionsValue, pdfWorkerOptions } from './sandbox';

/**
 * A PDF worker whose resident memory is above this after a task asks to be replaced
 * (serve-worker.ts): V8 keeps the heap a large document grew, and pdf-lib interns every name it has
 * read for the life of the process. A fresh worker holds about 70 MiB.
 */
export const PDF_WORKER_RETIRE_ABOVE_MB = 192;

/**
 * A PDF worker's young generation, kept small: V8 grows it to two semi-spaces of 16 MiB under
 * load and keeps them resident once the load is over. /proc/PID/smaps of a PDF worker 3 s after
 * 16 clients signing small PDFs held 44 MiB of V8 pages at the default and 20 MiB with semi-spaces
 * of 2 MiB, with no fewer PDFs a second (`node test/bench/run.mjs pades idle` prints both). The
 * objects a task makes live for the task; a larger document's arrays are large objects, outside the
 * young generation.
 */
export const WORKER_SEMI_SPACE_MB = 2;
/**
 * A signing thread's young generation (Node sets a thread's as a whole): at 16 MiB, V8 makes its
 * new space two semi-spaces of 8 MiB, half of its default. Smaller cost EVM throughput: builds
 * that differed only in this figure gave, in `BENCH_SECONDS=6 node test/bench/run.mjs evm` run in
 * turn twice, 1,001 and 1,260/s at 6 MiB, 1,397 and 1,397/s at 16 MiB, and 1,342 and 1,434/s with
 * V8's default.
 */
export const THREAD_YOUNG_GENERATION_MB = 16;

/** Why a worker ended without being asked to. */
export type WorkerGone = { limit: 'memory' } | { message: string; cause?: unknown };

export interface WorkerEvents {
  /** The worker listens: tasks posted before now were held for it, and start now. */
  ready(): void;
  message(message: unknown): void;
  gone(reason: WorkerGone): void;
}

/** A running worker, whichever kind. */
export interface WorkerHandle {
  post(message: unknown): void;
  /** A worker with work keeps the process alive (a CLI `verify` waits for it); an idle one does not. */
  ref(): void;
  unref(): void;
  terminate(): void;
}

export type StartWorker = (events: WorkerEvents) => WorkerHandle;

/**
 * A worker thread running `entry` with `role` (serve-worker.ts on the other side). Its
 * `process.env` is its own copy, holding only what the runtime reads: a thread shares the
 * service's memory, but code that lists the environment finds no chip PIN variable there.
 */
export function threadStarter(entry: NonNullable<WorkerEntry>, role: string): StartWorker {
  return (events) => {
    const options = { workerData: { role }, env: workerEnvironment(), resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB } };
    const worker = entry.kind === 'file' ? new Worker(entry.path, options) : new Worker(entry.code, { ...options, eval: true });
    worker.on('online', () => events.ready());
    worker.on('message', (m) => events.message(m));
    worker.on('error', (error: Error) => events.gone({ message: error.message.split('\n')[0]!.slice(0, 200), cause: error }));
    worker.on('exit', (code) => events.gone({ message: `exit code ${code}` }));
    return {
      post: (m) => worker.postMessage(m),
      ref: () => worker.ref(),
      unref: () => worker.unref(),
      terminate: () => void worker.terminate(),
    };
  };
}

/** What V8 prints when a heap limit ends a process (heap.cc, FatalProcessOutOfMemory). */
const OUT_OF_MEMORY = /heap out of memory|Allocation failed|Reached heap limit/i;

/**
 * A child process running `entry`, its V8 heap limited to `heapMb`, fenced by Node's permission
 * model to its own bundle's folder and the scratch folder, with an environment holding no secret
 * (sandbox.ts; all in NODE_OPTIONS, which the single executable honours as node does), talking
 * over the IPC channel with V8 serialization (typed arrays and dates survive). It ends with its
 * parent: its channel closes, and it exits.
 */
export function processStarter(entry: ProcessEntry, o: { heapMb: number; scratchDir: () => string; exited?: (pid: number) => void }): StartWorker {
  return (events) => {
    const options = pdfWorkerOptions({ heapMb: o.heapMb, semiSpaceMb: WORKER_SEMI_SPACE_MB, nodeVersion: process.versions.node, readFolders: entry.script ? [dirname(entry.script)] : [], scratch: o.scratchDir() });
    const child: ChildProcess = spawn(entry.command, entry.args, {
      env: workerEnvironment({ NODE_OPTIONS: nodeOptionsValue(options) }),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      windowsHide: true,
    });
    // The last words of a child that dies: V8's out-of-memory report names the limit.
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      stderr = (stderr + d).slice(-4096);
    });
    let ended = false;
    const end = (reason: WorkerGone) => {
      if (ended) return;
      ended = true;
      events.gone(reason);
    };
    // Tasks wait until the child says it listens (protocol.ts READY): one sent before would be lost.
    let waiting: unknown[] | null = [];
    child.on('message', (m: unknown) => {
      if (waiting && isReady(m)) {
        for (const task of waiting) child.send(task as never);
        waiting = null;
        events.ready();
        return;
      }
      events.message(m);
    });
    child.on('error', (error) => end({ message: error.message.split('\n')[0]!.slice(0, 200), cause: error }));
    // 'close', not 'exit': stderr has been read to its end by then.
    child.on('close', (code, signal) => {
      // Whether it was ended on purpose or not: what it left half-written is swept now.
      if (child.pid !== undefined) o.exited?.(child.pid);
      if (OUT_OF_MEMORY.test(stderr)) end({ limit: 'memory' });
      else end({ message: signal ? `signal ${signal}` : `exit code ${code}` });
    });
    const channel = () => child as unknown as { channel?: { ref(): void; unref(): void } };
    return {
      post: (m) => {
        if (waiting) waiting.push(m);
        else child.send(m as never);
      },
      ref: () => {
        child.ref();
        channel().channel?.ref();
        (child.stderr as unknown as { ref(): void }).ref();
      },
      unref: () => {
        child.unref();
        channel().channel?.unref();
        (child.stderr as unknown as { unref(): void }).unref();
      },
      terminate: () => {
        ended = true;
        child.kill('SIGKILL');
      },
    };
  };
}
