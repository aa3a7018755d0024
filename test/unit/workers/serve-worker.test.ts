import { describe, expect, it } from 'vitest';
import { LONG_TASK_MS, MEMORY_CHECK_MS, serveWorker, type TaskChannel } from '../../../src/workers/serve-worker';

/**
 * The worker's side of retiring (serve-worker.ts): resident memory is read after a long task
 * and otherwise at most once a second, not after every task (issue 18: reading it was 8 % of a PDF
 * worker's time per small PDF), and a worker above its bound still says so.
 */
describe('serveWorker: when a worker measures its memory', () => {
  function worker(o: { rssMb: number; keptMb?: number }) {
    let clock = 0;
    let reads = 0;
    let listener: (task: unknown) => void = () => undefined;
    const answers: { ok: boolean; retire?: boolean }[] = [];
    const port: TaskChannel = { onTask: (l) => void (listener = l), answer: (m) => void answers.push(m as never) };
    serveWorker(port, (task: { ms: number }) => void (clock += task.ms), {
      retireAboveMb: 100,
      now: () => clock,
      rss: () => (reads++, o.rssMb * 1024 * 1024),
      keptBytes: () => (o.keptMb ?? 0) * 1024 * 1024,
    });
    const send = async (ms: number) => {
      const before = answers.length;
      listener({ ms });
      while (answers.length === before) await new Promise((resolve) => setImmediate(resolve));
      return answers.at(-1)!;
    };
    return { send, reads: () => reads, wait: (ms: number) => void (clock += ms) };
  }

  it('reads it after its first task, then not again for short tasks within a second', async () => {
    const w = worker({ rssMb: 50 });
    for (let i = 0; i < 20; i += 1) expect((await w.send(1)).retire).toBeUndefined();
    expect(w.reads()).toBe(1);
    w.wait(MEMORY_CHECK_MS);
    await w.send(1);
    expect(w.reads()).toBe(2);
  });

  it('reads it after every long task (a large document), and asks to retire above its bound', async () => {
    const w = worker({ rssMb: 150 });
    expect((await w.send(1)).retire).toBe(true);
    // Measured just now, but this task was long: measured again.
    expect((await w.send(LONG_TASK_MS)).retire).toBe(true);
    expect(w.reads()).toBe(2);
    expect((await w.send(1)).retire).toBeUndefined();
    expect(w.reads()).toBe(2);
  });

  it('does not count the buffers it keeps for the next task (reused-buffers.ts), only what grew beyond them', async () => {
    const keeping = worker({ rssMb: 150, keptMb: 60 });
    expect((await keeping.send(LONG_TASK_MS)).retire).toBeUndefined();
    const grown = worker({ rssMb: 150, keptMb: 40 });
    expect((await grown.send(LONG_TASK_MS)).retire).toBe(true);
  });
});

describe('serveWorker: what a task sees of the queue behind it', () => {
  it('counts the tasks received after the running one and not started yet', async () => {
    let listener: (task: unknown) => void = () => undefined;
    const answers: unknown[] = [];
    const port: TaskChannel = { onTask: (l) => void (listener = l), answer: (m) => void answers.push(m) };
    const seen: [string, number][] = [];
    let release: () => void = () => undefined;
    serveWorker(port, async (task: { name: string }, queue) => {
      // The first task waits until the others have come, as a warm-up does while its engine loads.
      if (task.name === 'first') await new Promise<void>((resolve) => (release = resolve));
      seen.push([task.name, queue.waiting()]);
      return task.name;
    });
    listener({ name: 'first' });
    await new Promise((resolve) => setImmediate(resolve));
    listener({ name: 'second' });
    listener({ name: 'third' });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    while (answers.length < 3) await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([['first', 2], ['second', 1], ['third', 0]]);
  });
});
