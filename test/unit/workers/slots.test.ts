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
});
