import { fullCollection } from '../config/full-collection';

/**
 * Memory given back once a burst of work is over (docs/benchmarks.md: "idle RSS after the load ≤
 * 120 MiB", measured at 287 MiB with a live heap of 30 MiB). After a burst, V8 keeps the pages it
 * freed: /proc/PID/smaps of an idle service after 6 s of PDFs and EVM hashes showed 95 to 119 MiB
 * of anonymous memory, and after one full collection 44 to 46 MiB. V8's own memory reducer does not
 * run on Node's main isolate often enough to give it back, so the service asks for one full
 * collection itself, when the process has done real work and then sat idle: never during work,
 * never again until there is new work (test/unit/service/idle-memory.test.ts). The collection of a
 * heap this size takes tens of milliseconds; a request that arrives meanwhile waits that long.
 */

export interface IdleCollectorState {
  /** CPU the process used since the last collection (or the start), µs. */
  workSinceCollect: number;
  /** The last CPU reading (user + system), µs. */
  lastCpu: number;
}

export interface IdleCollectorLimits {
  /** A tick with at most this much CPU is idle (µs). */
  idleCpu: number;
  /** At least this much CPU since the last collection is work worth collecting after (µs). */
  workCpu: number;
}

export const IDLE_COLLECTOR_LIMITS: IdleCollectorLimits = { idleCpu: 40_000, workCpu: 1_000_000 };
const TICK_MS = 5_000;

/** One tick: whether to collect now, and the state after it. Pure, for the unit test. */
export function idleTick(state: IdleCollectorState, cpuNow: number, limits: IdleCollectorLimits = IDLE_COLLECTOR_LIMITS): { collect: boolean; next: IdleCollectorState } {
  const used = Math.max(0, cpuNow - state.lastCpu);
  const workSinceCollect = state.workSinceCollect + used;
  const collect = used <= limits.idleCpu && workSinceCollect >= limits.workCpu;
  return { collect, next: { workSinceCollect: collect ? 0 : workSinceCollect, lastCpu: cpuNow } };
}

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Starts the idle collector (an unref'd timer); `stop` ends it. The collection function is made
 * at the first collection, off the way to the first /health.
 */
export function startIdleCollector(): { stop(): void } {
  let gc: (() => void) | null | undefined;
  let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: cpuMicros() };
  const timer = setInterval(() => {
    const { collect, next } = idleTick(state, cpuMicros());
    state = next;
    if (!collect) return;
    if (gc === undefined) gc = fullCollection();
    if (!gc) return clearInterval(timer);
    gc();
    // The collection's own CPU is not new work.
    state = { ...state, lastCpu: cpuMicros() };
  }, TICK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
