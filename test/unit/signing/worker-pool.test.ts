import { afterEach, describe, expect, it } from 'vitest';
import { LocalsignError } from '../../../src/errors/errors';
import { errorFromWorker, errorToWorker, SignWorkerPool } from '../../../src/signing/worker-pool';
import { ChipError } from '../../../src/errors/errors';
import type { SignTask } from '../../../src/signing/sign-tasks';

/** A real worker thread that dies on one task and answers a typed error to the others. */
const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (task) => {
  if (task.op === 'die') process.exit(3);
  parentPort.postMessage({ ok: false, error: { kind: 'upstream', type: 'chip', message: 'the token was removed' } });
});`;

describe('SignWorkerPool across the thread boundary', () => {
  let pool: SignWorkerPool | null = null;
  afterEach(async () => pool?.close());

  it('keeps an error\'s kind and type (a chip fault stays a 502, not a 500)', async () => {
    pool = new SignWorkerPool({ workers: 1, entry: { kind: 'code', code: WORKER } });
    const error = await pool.run({ op: 'anything' } as unknown as SignTask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalsignError);
    expect(error).toMatchObject({ kind: 'upstream', type: 'chip', message: 'the token was removed' });
  });

  it('fails the tasks of a worker that exits, and starts another for the next task', async () => {
    pool = new SignWorkerPool({ workers: 1, entry: { kind: 'code', code: WORKER } });
    await expect(pool.run({ op: 'die' } as unknown as SignTask)).rejects.toThrow('the signing worker stopped (exit code 3); try again');
    expect(pool.size).toBe(0);
    await expect(pool.run({ op: 'again' } as unknown as SignTask)).rejects.toThrow('the token was removed');
    expect(pool.size).toBe(1);
  });

  it('starts workers on first use, up to the limit, and ends them when idle', async () => {
    pool = new SignWorkerPool({ workers: 2, entry: { kind: 'code', code: WORKER }, idleMs: 200 });
    expect(pool.size).toBe(0);
    await Promise.allSettled([1, 2, 3, 4].map(() => pool!.run({ op: 'x' } as unknown as SignTask)));
    expect(pool.size).toBe(2);
    await new Promise((r) => setTimeout(r, 600));
    expect(pool.size).toBe(0);
    await expect(pool.run({ op: 'x' } as unknown as SignTask)).rejects.toThrow('the token was removed');
  });

  it('errorToWorker / errorFromWorker round-trip a LocalsignError; others become internal', () => {
    expect(errorFromWorker(errorToWorker(new ChipError('PIN locked')))).toMatchObject({ kind: 'upstream', type: 'chip', message: 'PIN locked' });
    expect(errorToWorker(new TypeError('x'))).toEqual({ kind: 'internal', type: 'signing', message: 'x' });
  });
});
