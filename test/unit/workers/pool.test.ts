import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChipError, DocumentLimitError, LocalsignError } from '../../../src/domain/errors';
import { processStarter, threadStarter } from '../../../src/workers/handles';
import { WorkerPool, type PoolLimits } from '../../../src/workers/pool';
import { errorFromWorker, errorToWorker, READY } from '../../../src/workers/protocol';
import { tempDir } from '../../helpers/temp-dir';

/** A real worker thread: dies on one task, spins on another, echoes `{op:'echo'}`, and answers a typed error to anything else. */
const WORKER = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (task) => {
  if (task.op === 'die') process.exit(3);
  if (task.op === 'spin') for (;;) {}
  if (task.op === 'echo') return parentPort.postMessage({ ok: true, value: { threadId, n: task.n } });
  parentPort.postMessage({ ok: false, error: { kind: 'upstream', type: 'chip', message: 'the token was removed' } });
});`;

type Task = { op: string; n?: number };
const LIMITS: PoolLimits = {
  deadlineMs: 300,
  overLimit: (limit) => new DocumentLimitError(`document too complex: over the ${limit} limit`),
};
const inline = () => {
  throw new Error('not inline');
};

describe('WorkerPool across the thread boundary', () => {
  let pool: WorkerPool<Task, unknown> | null = null;
  afterEach(async () => pool?.close());
  const make = (o: { workers?: number; idleMs?: number; limits?: PoolLimits; depth?: number } = {}) =>
    (pool = new WorkerPool<Task, unknown>({ name: 'test worker', workers: o.workers ?? 1, start: threadStarter({ kind: 'code', code: WORKER }, 'test'), inline, idleMs: o.idleMs, limits: o.limits, depth: o.depth }));

  it('keeps an error\'s kind and type (a chip fault stays a 502, not a 500)', async () => {
    const error = await make().run({ op: 'anything' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalsignError);
    expect(error).toMatchObject({ kind: 'upstream', type: 'chip', message: 'the token was removed' });
  });

  it('fails the tasks of a worker that exits, and starts another for the next task', async () => {
    const p = make();
    await expect(p.run({ op: 'die' })).rejects.toThrow('the test worker stopped (exit code 3); try again');
    expect(p.size).toBe(0);
    await expect(p.run({ op: 'again' })).rejects.toThrow('the token was removed');
    expect(p.size).toBe(1);
  });

  it('starts workers on first use, up to the limit, and ends them when idle', async () => {
    const p = make({ workers: 2, idleMs: 200 });
    expect(p.size).toBe(0);
    await Promise.allSettled([1, 2, 3, 4].map(() => p.run({ op: 'x' })));
    expect(p.size).toBe(2);
    await new Promise((r) => setTimeout(r, 600));
    expect(p.size).toBe(0);
    await expect(p.run({ op: 'x' })).rejects.toThrow('the token was removed');
  });

  it('errorToWorker / errorFromWorker round-trip a LocalsignError; others become internal', () => {
    expect(errorFromWorker(errorToWorker(new ChipError('PIN locked')))).toMatchObject({ kind: 'upstream', type: 'chip', message: 'PIN locked' });
    expect(errorToWorker(new TypeError('x'))).toEqual({ kind: 'internal', type: 'signing', message: 'x' });
  });
});

/**
 * A real worker process, as the PDF workers are (handles.ts processStarter): says it listens,
 * spins or allocates without end on some tasks (what a hostile document makes an engine do; the
 * allocation is an array growing, which a thread's heap limit cannot stop without ending the
 * whole process), echoes its pid, and dies on one.
 */
const PROCESS_WORKER = `
process.on('disconnect', () => process.exit(0));
process.on('message', (task) => {
  if (task.op === 'die') process.exit(3);
  if (task.op === 'spin') for (;;) {}
  if (task.op === 'hog') { const a = []; for (let i = 0; ; i++) a.push(i); }
  if (task.op === 'echo') return process.send({ ok: true, value: { pid: process.pid, n: task.n } });
  if (task.op === 'fat') return process.send({ ok: true, value: { pid: process.pid }, retire: true });
  process.send({ ok: false, error: { kind: 'invalid', type: 'pdf_input', message: 'not a PDF' } });
});
process.send(${JSON.stringify(READY)});`;

describe('WorkerPool over worker processes, with limits', () => {
  let pool: WorkerPool<Task, unknown> | null = null;
  let dir: string;
  beforeAll(() => {
    dir = tempDir('localsign-pool-');
    writeFileSync(join(dir, 'worker.cjs'), PROCESS_WORKER);
    // Start-up slower than the deadline (a loaded machine spawning node): 1 s busy before READY.
    writeFileSync(join(dir, 'slow-start.cjs'), `const until = Date.now() + 1000; while (Date.now() < until) {}\n${PROCESS_WORKER}`);
    // A worker that never says it listens.
    writeFileSync(join(dir, 'mute.cjs'), `process.on('disconnect', () => process.exit(0)); setInterval(() => {}, 1000);`);
  });
  afterEach(async () => pool?.close());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const make = (o: { limits?: PoolLimits; depth?: number; file?: string } = {}) =>
    (pool = new WorkerPool<Task, unknown>({ name: 'test worker', workers: 1, start: processStarter({ command: process.execPath, args: [join(dir, o.file ?? 'worker.cjs')], script: join(dir, o.file ?? 'worker.cjs') }, { heapMb: 64, scratchDir: () => dir }), inline, limits: o.limits ?? LIMITS, depth: o.depth }));

  it('ends a task over its deadline with the limit error, and the next task runs in a new worker', async () => {
    const p = make({ limits: LIMITS });
    const first = (await p.run({ op: 'echo', n: 1 })) as { pid: number };
    const t0 = performance.now();
    const error = await p.run({ op: 'spin' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DocumentLimitError);
    expect((error as Error).message).toBe('document too complex: over the time limit');
    expect(performance.now() - t0).toBeLessThan(5_000);
    const next = (await p.run({ op: 'echo', n: 2 })) as { pid: number; n: number };
    expect(next.n).toBe(2);
    expect(next.pid).not.toBe(first.pid);
  });

  it('ends a worker at its heap limit (an array growing: one allocation past the limit) with the limit error; the pool goes on', async () => {
    const p = make({ limits: { ...LIMITS, deadlineMs: 60_000 } });
    const error = await p.run({ op: 'hog' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DocumentLimitError);
    expect((error as Error).message).toBe('document too complex: over the memory limit');
    await expect(p.run({ op: 'echo', n: 3 })).resolves.toMatchObject({ n: 3 });
  });

  it('a task queued behind one over its limit still runs, in the next worker', async () => {
    const p = make({ limits: LIMITS, depth: 2 });
    const [spin, echo] = await Promise.allSettled([p.run({ op: 'spin' }), p.run({ op: 'echo', n: 4 })]);
    expect(spin.status).toBe('rejected');
    expect(echo).toMatchObject({ status: 'fulfilled', value: { n: 4 } });
  });

  it('an aborted task that has not started never runs; an aborted running one ends its worker', async () => {
    const p = make({ limits: { ...LIMITS, deadlineMs: 60_000 } });
    const abort = new AbortController();
    const spinning = p.run({ op: 'spin' }, { signal: abort.signal });
    const queued = new AbortController();
    const waiting = p.run({ op: 'die' }, { signal: queued.signal });
    queued.abort(new Error('timed out while queued'));
    await expect(waiting).rejects.toThrow('timed out while queued');
    abort.abort(new Error('timed out while running'));
    await expect(spinning).rejects.toThrow('timed out while running');
    // The queued 'die' never reached a worker (it would have answered "stopped (exit code 3)").
    await expect(p.run({ op: 'echo', n: 5 })).resolves.toMatchObject({ n: 5 });
    await expect(p.run({ op: 'x' }, { signal: AbortSignal.abort(new Error('already over')) })).rejects.toThrow('already over');
  });

  it('a worker that asks to retire after its answer (it kept too much memory) is replaced', async () => {
    const p = make();
    const fat = (await p.run({ op: 'fat' })) as { pid: number };
    const next = (await p.run({ op: 'echo', n: 6 })) as { pid: number };
    expect(next.pid).not.toBe(fat.pid);
    expect(p.size).toBe(1);
  });

  it('counts the deadline from the moment the worker listens: a start slower than the deadline is not the task\'s time', async () => {
    const p = make({ file: 'slow-start.cjs' });
    const t0 = performance.now();
    await expect(p.run({ op: 'echo', n: 7 })).resolves.toMatchObject({ n: 7 });
    expect(performance.now() - t0).toBeGreaterThan(LIMITS.deadlineMs);
    // Once it listens, the deadline holds as before.
    await expect(p.run({ op: 'spin' })).rejects.toThrow('document too complex: over the time limit');
  });

  it('a worker that never says it listens fails its task after the start limit, naming the worker, not the document', async () => {
    const p = make({ file: 'mute.cjs', limits: { ...LIMITS, startMs: 800 } });
    const error = await p.run({ op: 'echo', n: 8 }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DocumentLimitError);
    expect((error as Error).message).toBe('the test worker did not start within 0.8 s; try again');
    expect(p.size).toBe(0);
  });

  it('a process that exits fails its task with the exit code, and the next task starts another', async () => {
    const p = make();
    await expect(p.run({ op: 'die' })).rejects.toThrow('the test worker stopped (exit code 3); try again');
    await expect(p.run({ op: 'other' })).rejects.toThrow('not a PDF');
  });
});

/**
 * Issue 18: a task whose caller gave up never starts, wherever it waited: in the pool's queue
 * behind a busy worker (depth 1, as the PDF workers run), or already posted to a worker behind
 * the task it runs (the signing threads keep four posted ahead). The worker is the real
 * serveWorker, bundled here (vitest cannot run .ts in a thread): it lists the tasks it started,
 * and `hold` keeps it busy until the test lets go.
 */
const SERVED_WORKER = `
import { parentPort } from 'node:worker_threads';
import { serveWorker, threadChannel } from './src/workers/serve-worker';
const started: number[] = [];
serveWorker(threadChannel(parentPort!), (task: { op: string; n?: number; flag?: SharedArrayBuffer }) => {
  if (task.op === 'started') return started;
  started.push(task.n!);
  if (task.op === 'hold') {
    const flag = new Int32Array(task.flag!);
    Atomics.store(flag, 0, 1);
    Atomics.wait(flag, 0, 1);
  }
  return task.n;
});`;

describe('WorkerPool: an aborted task never starts', () => {
  let code: string;
  type HeldTask = Task & { flag?: SharedArrayBuffer };
  let pool: WorkerPool<HeldTask, unknown> | null = null;
  beforeAll(async () => {
    const out = await build({ stdin: { contents: SERVED_WORKER, resolveDir: resolve(__dirname, '../../..'), loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'warning' });
    code = out.outputFiles[0]!.text;
  });
  afterEach(async () => pool?.close());
  const make = (depth: number) => (pool = new WorkerPool<HeldTask, unknown>({ name: 'test worker', workers: 1, start: threadStarter({ kind: 'code', code }, 'test'), inline, depth }));

  /** Starts a task that holds the worker until `release()`; resolves once the worker runs it. */
  const hold = async (p: NonNullable<typeof pool>) => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const done = p.run({ op: 'hold', n: 1, flag: flag.buffer as SharedArrayBuffer });
    for (let i = 0; Atomics.load(flag, 0) !== 1; i += 1) {
      if (i > 2_000) throw new Error('the worker never started the holding task');
      await new Promise((r) => setTimeout(r, 5));
    }
    return {
      done,
      release: () => {
        Atomics.store(flag, 0, 2);
        Atomics.notify(flag, 0);
      },
    };
  };

  it('aborted before run: rejected at once, no worker started, nothing posted', async () => {
    const p = make(4);
    await expect(p.run({ op: 'mark', n: 2 }, { signal: AbortSignal.abort(new Error('over before it began')) })).rejects.toThrow('over before it began');
    expect(p.size).toBe(0);
    await expect(p.run({ op: 'started' })).resolves.toEqual([]);
  });

  for (const [where, depth] of [['in the pool\'s queue behind a busy worker (depth 1)', 1], ['posted to a busy worker behind its running task (depth 4)', 4]] as const) {
    it(`aborted while it waits ${where}: its caller hears at once, and it never runs`, async () => {
      const p = make(depth);
      const busy = await hold(p);
      const abort = new AbortController();
      const waiting = p.run({ op: 'mark', n: 2 }, { signal: abort.signal });
      const after = p.run({ op: 'mark', n: 3 });
      abort.abort(new Error('timed out while queued'));
      // Heard while the worker is still held: the caller is not kept until the worker is free.
      await expect(waiting).rejects.toThrow('timed out while queued');
      busy.release();
      await expect(busy.done).resolves.toBe(1);
      await expect(after).resolves.toBe(3);
      await expect(p.run({ op: 'started' })).resolves.toEqual([1, 3]);
      expect(p.size).toBe(1); // the same worker throughout: the cancel did not cost it
    });
  }
});

/** Owners take turns, and an owner with nothing running may start a burst worker (issue 31: fairness). */
describe('WorkerPool turns between owners', () => {
  const SLEEPER = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (task) => setTimeout(() => parentPort.postMessage({ ok: true, value: { threadId, id: task.id } }), task.ms));`;
  let pool: WorkerPool<{ id: string; ms: number }, { threadId: number; id: string }> | null = null;
  afterEach(async () => pool?.close());
  const make = (burst: number) =>
    (pool = new WorkerPool<{ id: string; ms: number }, { threadId: number; id: string }>({ name: 'test worker', workers: 1, burst, depth: 1, start: threadStarter({ kind: 'code', code: SLEEPER }, 'test'), inline }));

  it('one owner\'s queued tasks wait behind each other, not in front of another owner\'s', async () => {
    const p = make(0);
    const order: string[] = [];
    const runs = [
      ...['a1', 'a2', 'a3'].map((id) => p.run({ id, ms: 60 }, { owner: 'A' })),
      p.run({ id: 'b1', ms: 1 }, { owner: 'B' }),
    ].map((r) => r.then((v) => order.push(v.id)));
    await Promise.all(runs);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(p.size).toBe(1);
  });

  it('an owner with nothing running gets a burst worker while the others are busy, and only one', async () => {
    const p = make(1);
    const done: string[] = [];
    const slow = ['a1', 'a2', 'a3'].map((id) => p.run({ id, ms: 400 }, { owner: 'A' }).then((v) => (done.push(v.id), v)));
    const b = await p.run({ id: 'b1', ms: 1 }, { owner: 'B' });
    // B did not wait for any of A's tasks: it had a worker of its own.
    expect(done).toEqual([]);
    expect(p.size).toBe(2);
    // A third owner finds the burst spent: it waits for a worker, served before A's next.
    const c = p.run({ id: 'c1', ms: 1 }, { owner: 'C' });
    await Promise.all([...slow, c]);
    expect(p.size).toBe(2);
    expect(b.id).toBe('b1');
  });
});

/** A worker kept warm (keepWarm): a request that comes during its warm task waits for it, no cold worker started beside it. */
describe('WorkerPool: a task that comes while the kept worker warms up', () => {
  // Busy for task.ms, one task at a time, answered in order as serveWorker does.
  const SLEEPER = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (task) => {
  const end = Date.now() + task.ms;
  while (Date.now() < end);
  parentPort.postMessage({ ok: true, value: { threadId, id: task.id } });
});`;
  type SleepTask = { id: string; ms: number };
  let pool: WorkerPool<SleepTask, { threadId: number; id: string }> | null = null;
  afterEach(async () => pool?.close());

  /** Two workers at most, one kept, its warm task 300 ms; `depth` tasks may wait in each. */
  const warmingPool = (depth: number) =>
    (pool = new WorkerPool<SleepTask, { threadId: number; id: string }>({
      name: 'test worker',
      workers: 2,
      depth,
      keep: 1,
      warmTask: () => ({ id: 'warm', ms: 300 }),
      start: threadStarter({ kind: 'code', code: SLEEPER }, 'test'),
      inline,
    }));

  it('is posted behind the warm task to the same worker, even with room for a second worker', async () => {
    const p = warmingPool(1);
    p.keepWarm();
    expect(p.size).toBe(1);
    const first = await p.run({ id: 'first', ms: 1 });
    expect(first.id).toBe('first');
    // Still one worker: the request waited for the warming one instead of starting a second.
    expect(p.size).toBe(1);
    // Once it is warm, two requests at once spread over two workers as before.
    const both = await Promise.all([p.run({ id: 'a', ms: 200 }), p.run({ id: 'b', ms: 200 })]);
    expect(new Set(both.map((r) => r.threadId)).size).toBe(2);
  });

  it('by default, a worker started for a burst is gone within 3 s of its last task (the memory 3 s after a load), the kept one stays', async () => {
    const p = warmingPool(1);
    p.keepWarm();
    await p.run({ id: 'after the warm-up', ms: 1 });
    const both = await Promise.all([p.run({ id: 'a', ms: 200 }), p.run({ id: 'b', ms: 200 })]);
    expect(new Set(both.map((r) => r.threadId)).size).toBe(2);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(p.size).toBe(1);
    // The one that stayed answers at once: no worker started for it.
    await p.run({ id: 'later', ms: 1 });
    expect(p.size).toBe(1);
  });

  it('takes a second task behind the first while it warms, up to its depth, and starts no second worker for it', async () => {
    // Two tasks come while the kept worker warms up (a request behind another): a second worker
    // started for the second would redo the warm-up on the other core, while the service starts.
    const p = warmingPool(2);
    p.keepWarm();
    const answers = await Promise.all([p.run({ id: 'one', ms: 1 }), p.run({ id: 'two', ms: 1 })]);
    expect(answers.map((a) => a.id)).toEqual(['one', 'two']);
    expect(answers[0]!.threadId).toBe(answers[1]!.threadId);
    expect(p.size).toBe(1);
  });
});

/** WorkerPool.tidy: once the service is idle after a burst, each idle worker collects what the burst left. */
describe('WorkerPool.tidy', () => {
  // Records the ids of the tasks it ran; `report` answers them. Each takes task.ms.
  const RECORDER = `
const { parentPort, threadId } = require('node:worker_threads');
const seen = [];
parentPort.on('message', (task) => {
  const end = Date.now() + (task.ms ?? 0);
  while (Date.now() < end);
  if (task.id === 'report') return parentPort.postMessage({ ok: true, value: { threadId, seen: [...seen] } });
  seen.push(task.id);
  parentPort.postMessage({ ok: true, value: { threadId, seen: [] } });
});`;
  type RecTask = { id: string; ms?: number };
  type RecAnswer = { threadId: number; seen: string[] };
  let pool: WorkerPool<RecTask, RecAnswer> | null = null;
  afterEach(async () => pool?.close());
  const make = (idleMs = 2_000) =>
    (pool = new WorkerPool<RecTask, RecAnswer>({ name: 'test worker', workers: 2, keep: 1, idleMs, warmTask: () => ({ id: 'warm' }), tidyTask: () => ({ id: 'tidy', ms: 50 }), start: threadStarter({ kind: 'code', code: RECORDER }, 'test'), inline }));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('posts its task to each worker that has nothing to do, and to none that is busy', async () => {
    const p = make();
    const burst = await Promise.all([p.run({ id: 'a', ms: 100 }), p.run({ id: 'b', ms: 100 })]);
    expect(new Set(burst.map((r) => r.threadId)).size).toBe(2);
    const long = p.run({ id: 'long', ms: 300 });
    await sleep(20);
    p.tidy();
    const busy = (await long).threadId;
    const reports = await Promise.all([p.run({ id: 'report' }), p.run({ id: 'report' })]);
    const byThread = new Map(reports.map((r) => [r.threadId, r.seen]));
    expect(byThread.get(busy)).not.toContain('tidy');
    expect([...byThread.entries()].filter(([t]) => t !== busy).map(([, seen]) => seen.at(-1))).toEqual(['tidy']);
  });

  it('does not put off the end of a worker beyond the kept one (its idle time counts through the tidy)', async () => {
    const p = make(400);
    p.keepWarm();
    await p.run({ id: 'after the warm-up' });
    await Promise.all([p.run({ id: 'a', ms: 100 }), p.run({ id: 'b', ms: 100 })]);
    expect(p.size).toBe(2);
    await sleep(250);
    p.tidy();
    // 400 ms after the burst, not after the tidy: one worker is left at 550 ms.
    await sleep(300);
    expect(p.size).toBe(1);
  });

  it('a task that comes during the tidy is answered after it, by the same worker', async () => {
    const p = make();
    const { threadId } = await p.run({ id: 'a' });
    p.tidy();
    const next = await p.run({ id: 'next' });
    expect(next.threadId).toBe(threadId);
    expect((await p.run({ id: 'report' })).seen).toEqual(['a', 'tidy', 'next']);
  });
});
