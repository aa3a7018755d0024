import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../../../src/chip/pkcs11/serial-queue';

describe('SerialQueue', () => {
  it('never runs two tasks at once and keeps submission order', async () => {
    const queue = new SerialQueue();
    let active = 0;
    let maxActive = 0;
    const order: number[] = [];
    const tasks = Array.from({ length: 20 }, (_, i) =>
      queue.run(async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        // Several turns of the event loop inside a task, as a C_SignInit + C_Sign pair takes.
        for (let k = 0; k < 3; k += 1) await new Promise((resolve) => setImmediate(resolve));
        order.push(i);
        active -= 1;
        return i * 2;
      }),
    );
    expect(queue.pending).toBe(20);
    expect(await Promise.all(tasks)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(maxActive).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(queue.pending).toBe(0);
  });

  it('a failing task rejects only its own caller', async () => {
    const queue = new SerialQueue();
    const failed = queue.run(async () => {
      throw new Error('token said no');
    });
    const next = queue.run(async () => 'still served');
    await expect(failed).rejects.toThrow('token said no');
    await expect(next).resolves.toBe('still served');
  });

  it('an aborted task still waiting leaves at once and never runs; the ones behind it keep their order', async () => {
    const queue = new SerialQueue();
    let letGo!: () => void;
    const ran: string[] = [];
    // The token held, as by a PIN pad nobody types on.
    const holding = queue.run(async () => {
      ran.push('holder');
      await new Promise<void>((resolve) => (letGo = resolve));
    });
    const abort = new AbortController();
    const cancelled = queue.run(async () => void ran.push('cancelled'), abort.signal);
    const behind = queue.run(async () => void ran.push('behind'));
    expect(queue.pending).toBe(3);
    abort.abort(new Error('signing did not complete within 4 s'));
    // Heard while the holder still runs: the caller is not kept until the token is free.
    await expect(cancelled).rejects.toThrow('signing did not complete within 4 s');
    expect(queue.pending).toBe(2);
    letGo();
    await holding;
    await behind;
    expect(ran).toEqual(['holder', 'behind']);
    expect(queue.pending).toBe(0);
  });

  it('a task aborted before it is queued never runs; one that has started is left to finish', async () => {
    const queue = new SerialQueue();
    let ran = false;
    await expect(queue.run(async () => void (ran = true), AbortSignal.abort(new Error('already over')))).rejects.toThrow('already over');
    expect(ran).toBe(false);
    expect(queue.pending).toBe(0);
    // Started: it holds the signal and decides itself (it may be past the token's C_Sign).
    const abort = new AbortController();
    let finish!: () => void;
    const started = queue.run(() => new Promise<string>((resolve) => (finish = () => resolve('signed'))), abort.signal);
    await new Promise((r) => setImmediate(r));
    abort.abort(new Error('too late'));
    finish();
    await expect(started).resolves.toBe('signed');
  });
});
