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
});
