import { describe, expect, it } from 'vitest';
import { Slots } from '../../../src/workers/slots';

describe('Slots', () => {
  it('lets at most N hold at once and hands a released slot to the oldest waiter', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const a = await slots.acquire();
    const b = await slots.acquire();
    const c = slots.acquire().then((release) => (order.push('c'), release));
    const d = slots.acquire().then((release) => (order.push('d'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    a(); // a second release of the same slot changes nothing
    const releaseC = await c;
    expect(order).toEqual(['c']);
    b();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    releaseC();
    releaseD();
    // All free again: two acquire at once without waiting.
    await Promise.all([slots.acquire(), slots.acquire()]);
  });

  it('a waiter whose signal is aborted leaves the line at once; the slot goes to the next one', async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const abort = new AbortController();
    const leaving = slots.acquire(abort.signal);
    const next = slots.acquire();
    abort.abort(new Error('timed out waiting'));
    await expect(leaving).rejects.toThrow('timed out waiting');
    held();
    const releaseNext = await next;
    expect(slots.free).toBe(false);
    releaseNext();
    expect(slots.free).toBe(true);
    await expect(slots.acquire(AbortSignal.abort(new Error('over')))).rejects.toThrow('over');
    expect(slots.free).toBe(true);
  });
});
