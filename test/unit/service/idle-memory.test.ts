import { describe, expect, it } from 'vitest';
import { fullCollection } from '../../../src/config/full-collection';
import { IDLE_COLLECTOR_LIMITS, idleTick, type IdleCollectorState } from '../../../src/service/idle-memory';

/** Issue 18, idle RSS after load: one full collection once work is over, never during it. */
describe('the idle collector', () => {
  const run = (cpuPerTick: number[]) => {
    let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: 0, settling: null };
    let cpu = 0;
    return cpuPerTick.map((used) => {
      cpu += used;
      const { collect, next } = idleTick(state, cpu);
      state = next;
      return collect;
    });
  };
  const busy = 1_500_000; // both cores busy through a 1 s tick
  const idle = 5_000;
  const settle = IDLE_COLLECTOR_LIMITS.settleTicks;
  const idleTicks = (n: number) => Array<number>(n).fill(idle);

  it('a service that only started and sits idle collects nothing', () => {
    expect(run([IDLE_COLLECTOR_LIMITS.workCpu / 2, idle, idle, idle])).toEqual([false, false, false, false]);
  });

  it("the start's own work, before the first tick, is not counted: the first tick only reads the CPU", () => {
    let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: null, settling: null };
    const decisions: boolean[] = [];
    for (const cpu of [busy, busy + idle, busy + 2 * idle]) {
      const { collect, next } = idleTick(state, cpu);
      decisions.push(collect);
      state = next;
    }
    expect(decisions).toEqual([false, false, false]);
    expect(state.workSinceCollect).toBe(2 * idle);
  });

  it('under load, never; on the first idle tick after it, once; again only after new work', () => {
    expect(run([busy, busy, idle, idle, idle, busy, idle, idle])).toEqual([false, false, true, false, false, false, true, false]);
  });

  it('a second collection follows the first once the service has stayed idle settleTicks more ticks, and only one', () => {
    const decisions = run([busy, ...idleTicks(settle * 3)]);
    expect(decisions.flatMap((d, i) => (d ? [i] : []))).toEqual([1, 1 + settle]);
  });

  it('a busy tick when the second is due puts it off to the next idle tick; a new burst starts over', () => {
    const light = IDLE_COLLECTOR_LIMITS.idleCpu + 1;
    expect(run([busy, ...idleTicks(settle), light, idle, idle]).flatMap((d, i) => (d ? [i] : []))).toEqual([1, settle + 2]);
    // A burst before the second is due: a first collection after it, its second settleTicks later.
    expect(run([busy, idle, busy, ...idleTicks(settle + 2)]).flatMap((d, i) => (d ? [i] : []))).toEqual([1, 3, 3 + settle]);
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
    // Made once: the same function after (one V8 context, not one per call).
    expect(fullCollection()).toBe(gc);
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
