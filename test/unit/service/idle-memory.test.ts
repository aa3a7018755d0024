import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollection } from '../../../src/config/full-collection';
import { IDLE_COLLECTOR_LIMITS, idleTick, startIdleCollector, type IdleCollectorState } from '../../../src/service/idle-memory';

/** Issue 18, idle RSS after load: one full collection once work is over, never during it. */
describe('the idle collector', () => {
  const run = (cpuPerTick: number[]) => {
    let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: 0, settling: null, quiet: 0 };
    let cpu = 0;
    return cpuPerTick.map((used) => {
      cpu += used;
      const { collect, next } = idleTick(state, cpu);
      state = next;
      return collect;
    });
  };
  const busy = 375_000; // both cores busy through a 250 ms tick
  const idle = IDLE_COLLECTOR_LIMITS.idleCpu / 2;
  const settle = IDLE_COLLECTOR_LIMITS.settleTicks;
  const q = IDLE_COLLECTOR_LIMITS.quietTicks;
  const idleTicks = (n: number) => Array<number>(n).fill(idle);
  const at = (decisions: boolean[]) => decisions.flatMap((d, i) => (d ? [i] : []));

  it('a service that only started and sits idle collects nothing', () => {
    expect(run([IDLE_COLLECTOR_LIMITS.workCpu / 2, idle, idle, idle])).toEqual([false, false, false, false]);
  });

  it("the start's own work, before the first tick, is not counted: the first tick only reads the CPU", () => {
    let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: null, settling: null, quiet: 0 };
    const decisions: boolean[] = [];
    for (const cpu of [busy, busy + idle, busy + 2 * idle]) {
      const { collect, next } = idleTick(state, cpu);
      decisions.push(collect);
      state = next;
    }
    expect(decisions).toEqual([false, false, false]);
    expect(state.workSinceCollect).toBe(2 * idle);
  });

  it('under load, never; once quietTicks idle ticks in a row follow it, once; again only after new work', () => {
    expect(at(run([busy, busy, ...idleTicks(q + 2), busy, ...idleTicks(q + 1)]))).toEqual([1 + q, 2 + q + 2 + q]);
  });

  it('a pause shorter than quietTicks between two bursts is not the end of the first (the rounds of a busy client)', () => {
    expect(at(run([busy, ...idleTicks(q - 1), busy, ...idleTicks(q - 1), busy]))).toEqual([]);
  });

  it('a second collection follows the first once the service has stayed idle settleTicks more ticks, and only one', () => {
    expect(at(run([busy, ...idleTicks(settle * 3)]))).toEqual([q, q + settle]);
  });

  it('a busy tick when the second is due puts it off to the next idle tick; a new burst starts over', () => {
    const light = IDLE_COLLECTOR_LIMITS.idleCpu + 1;
    expect(at(run([busy, ...idleTicks(q - 1 + settle), light, idle, idle]))).toEqual([q, q + settle + 1]);
    // A burst before the second is due: a first collection after it, its second settleTicks later.
    expect(at(run([busy, ...idleTicks(q), busy, ...idleTicks(q + settle + 2)]))).toEqual([q, 2 * q + 1, 2 * q + 1 + settle]);
  });

  it('light steady traffic (a request now and then) collects once its CPU adds up, on a quiet moment', () => {
    const light = IDLE_COLLECTOR_LIMITS.idleCpu + 1; // each tick just above idle
    const ticks = Math.ceil(IDLE_COLLECTOR_LIMITS.workCpu / light);
    const decisions = run([...Array<number>(ticks).fill(light), ...idleTicks(q)]);
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

  describe('startIdleCollector', () => {
    afterEach(() => vi.useRealTimers());

    it('tells its caller after each collection (the service has its idle workers collect then), and not before', () => {
      vi.useFakeTimers();
      let cpu = 0;
      const cpuUsage = vi.spyOn(process, 'cpuUsage').mockImplementation(() => ({ user: cpu, system: 0 }));
      const collected = vi.fn();
      const collector = startIdleCollector(collected);
      try {
        vi.advanceTimersByTime(250); // the first tick reads the CPU
        cpu += IDLE_COLLECTOR_LIMITS.workCpu; // a burst
        vi.advanceTimersByTime(250);
        vi.advanceTimersByTime(250 * (q - 1));
        expect(collected).not.toHaveBeenCalled();
        vi.advanceTimersByTime(250);
        expect(collected).toHaveBeenCalledTimes(1);
        vi.advanceTimersByTime(250 * settle);
        expect(collected).toHaveBeenCalledTimes(2);
      } finally {
        collector.stop();
        cpuUsage.mockRestore();
      }
    });
  });
});
