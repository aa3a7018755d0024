import { describe, expect, it } from 'vitest';
import { ReusedBuffers } from '../../../src/workers/reused-buffers';

const MiB = 1024 * 1024;

describe('ReusedBuffers: a PDF worker keeps its large buffers from one task to the next (issue 18)', () => {
  it('the n-th buffer of a task is the n-th of the task before: the same memory, not new pages', () => {
    const kept = new ReusedBuffers(16 * MiB);
    kept.startTask();
    const a = kept.take(5 * MiB);
    const b = kept.take(5 * MiB);
    expect(a.buffer).not.toBe(b.buffer); // two at once in one task: two buffers
    a.fill(1);
    kept.startTask();
    const again = kept.take(5 * MiB - 10);
    expect(again.buffer).toBe(a.buffer);
    expect([again.byteOffset, again.length]).toEqual([0, 5 * MiB - 10]);
    expect(again[0]).toBe(1); // contents are what the last task left: callers write every byte
    expect(kept.take(4 * MiB).buffer).toBe(b.buffer);
  });

  it('grows a slot for a larger document, rounded up to a MiB, and keeps it', () => {
    const kept = new ReusedBuffers(16 * MiB);
    kept.startTask();
    const small = kept.take(4 * MiB);
    kept.startTask();
    const larger = kept.take(6 * MiB + 1);
    expect(larger.buffer).not.toBe(small.buffer);
    expect(larger.buffer.byteLength).toBe(7 * MiB);
    expect(kept.heldBytes()).toBe(7 * MiB);
    kept.startTask();
    expect(kept.take(7 * MiB).buffer).toBe(larger.buffer); // the slack serves a slightly longer one
  });

  it('a buffer over its limit is made fresh and not kept, and the slot lets go of its smaller one', () => {
    const kept = new ReusedBuffers(8 * MiB);
    kept.startTask();
    kept.take(6 * MiB);
    kept.take(6 * MiB);
    expect(kept.heldBytes()).toBe(12 * MiB);
    kept.startTask();
    const huge = kept.take(9 * MiB);
    expect(huge.length).toBe(9 * MiB);
    expect(kept.heldBytes()).toBe(6 * MiB);
    kept.startTask();
    expect(kept.take(9 * MiB).buffer).not.toBe(huge.buffer);
    expect(kept.heldBytes()).toBe(6 * MiB);
  });
});

describe('ReusedBuffers lets go of what no task took for a while (issue 18)', () => {
  it('drops a slot unused for idleMs, keeps one taken since, and a later take makes a new one', () => {
    const kept = new ReusedBuffers(16 * MiB);
    kept.startTask();
    const first = kept.take(5 * MiB, 1_000);
    kept.take(4 * MiB, 1_000);
    kept.startTask();
    kept.take(5 * MiB, 4_000); // slot 0 taken again; slot 1 not
    expect(kept.dropUnused(5_500, 5_000)).toBe(false);
    expect(kept.heldBytes()).toBe(9 * MiB); // both taken within the last 5 s
    expect(kept.dropUnused(6_500, 5_000)).toBe(true);
    expect(kept.heldBytes()).toBe(5 * MiB); // slot 1, last taken at 1,000, is let go
    expect(kept.dropUnused(9_000, 5_000)).toBe(true);
    expect(kept.heldBytes()).toBe(0);
    kept.startTask();
    expect(kept.take(5 * MiB, 9_100).buffer).not.toBe(first.buffer);
  });
});
