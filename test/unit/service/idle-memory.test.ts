import { describe, expect, it } from 'vitest';
import { fullCollection } from '../../../src/config/full-collection';
import { IDLE_COLLECTOR_LIMITS, idleTick, type IdleCollectorState } from '../../../src/service/idle-memory';

/** Issue 18, idle RSS after load: one full collection once work is over, never during it. */
describe('the idle collector', () => {
  const run = (cpuPerTick: number[]) => {
    let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: 0 };
    let cpu = 0;
    return cpuPerTick.map((used) => {
      cpu += used;
      const { collect, next } = idleTick(state, cpu);
      state = next;
      return collect;
    });
  };
  const busy = 3_000_000; // 3 s of CPU in a 5 s tick
  const idle = 5_000;

  it('a service that only started and sits idle collects nothing', () => {
    expect(run([200_000, idle, idle, idle])).toEqual([false, false, false, false]);
  });

  it('under load, never; on the first idle tick after it, once; again only after new work', () => {
    expect(run([busy, busy, idle, idle, idle, busy, idle, idle])).toEqual([false, false, true, false, false, false, true, false]);
  });

  it('light steady traffic (a request now and then) collects once its CPU adds up, on a quiet tick', () => {
    const light = IDLE_COLLECTOR_LIMITS.idleCpu + 1; // each tick just above idle
    const ticks = Math.ceil(IDLE_COLLECTOR_LIMITS.workCpu / light);
    const decisions = run([...Array<number>(ticks).fill(light), idle]);
    expect(decisions.slice(0, -1).every((d) => !d)).toBe(true);
    expect(decisions.at(-1)).toBe(true);
  });

  it('the collection function this runtime gives runs a full collection (so the service really collects)', async () => {
    const gc = fullCollection();
    expect(gc).toBeTypeOf('function');
    // A collection frees what is no longer reachable: a weakly held object goes.
    let target: object | null = { big: new Array(1000).fill(0) };
    const ref = new WeakRef(target);
    target = null;
    // A WeakRef's target is kept to the end of the job that made it (ECMA-262 ClearKeptObjects).
    await new Promise((resolve) => setImmediate(resolve));
    gc!();
    expect(ref.deref()).toBeUndefined();
  });
});
