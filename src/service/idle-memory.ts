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
 *
 * On Node 20 that first collection leaves the young generation at the size the burst grew it to
 * (two semi-spaces of 16 MiB on a 64-bit Node), resident: V8 shrinks it only in a full collection
 * that finds the allocation rate low over its last 5 s (Heap::ReduceNewSpaceSize), which the first
 * one, right after the burst, never does. So a second collection follows 6 s later
 * (`settleTicks`), and gives those pages back (a plain Node script measured 89 -> 56 MiB; the
 * `idle` row of `node test/bench/run.mjs` shows the service's). On Node 22, the single
 * executable's runtime, the first one already does (full-collection.ts: V8's last-resort
 * collection), and the second finds little left.
 */

export interface IdleCollectorState {
  /** CPU the process used since the last collection (or the start), µs. */
  workSinceCollect: number;
  /**
   * The last CPU reading (user + system), µs; null before the first tick. The service starts the
   * collector with null: its own start's tail (the signing thread's warm-up, about 200 ms of CPU
   * after the listener) is not a burst. Counted, it brought a collection 1 to 3 s after start that
   * gave back 2 MiB, and the first PDF 3 s after start sometimes waited tens of ms for it.
   */
  lastCpu: number | null;
  /** Ticks since a burst's first collection, while its second is still to come; null when none is. */
  settling: number | null;
  /** Idle ticks in a row, up to the last one. */
  quiet: number;
}

export interface IdleCollectorLimits {
  /** A tick with at most this much CPU is idle (µs). */
  idleCpu: number;
  /** At least this much CPU since the last collection is work worth collecting after (µs). */
  workCpu: number;
  /** Ticks after the first collection before the second (see above: more than V8's 5 s). */
  settleTicks: number;
  /** Idle ticks in a row before the first collection: a pause between requests is not the end of a burst. */
  quietTicks: number;
}

/**
 * Four ticks a second, and the first collection after four idle ones in a row: 1 to 1.25 s after a
 * burst's end. With one tick a second and the first idle one, it came 1 to 2 s after, and in one
 * run of three (the load rows on the single executable, a throwaway script reading smaps) not yet
 * 3 s after: 175 MiB then, 114 to 135 MiB in the others. A shorter pause is not the end of a burst:
 * collecting after the first idle quarter, the service collected between the rounds of the bench's
 * `ab` row (0.6 s apart), and its next request waited for that. 2 ms of CPU in a quarter of a
 * second is idle (a /health poll costs well under one). 250 ms of CPU is work enough: the
 * retention sweep of a service holding 30,000 results costs about 500 ms and left 13 MiB more
 * resident until the next burst, when 1 s was the mark. The second collection comes 6 s after
 * the first (24 ticks).
 */
export const IDLE_COLLECTOR_LIMITS: IdleCollectorLimits = { idleCpu: 2_000, workCpu: 250_000, settleTicks: 24, quietTicks: 4 };
const TICK_MS = 250;

/** One tick: whether to collect now, and the state after it. Pure, for the unit test. */
export function idleTick(state: IdleCollectorState, cpuNow: number, limits: IdleCollectorLimits = IDLE_COLLECTOR_LIMITS): { collect: boolean; next: IdleCollectorState } {
  if (state.lastCpu === null) return { collect: false, next: { ...state, lastCpu: cpuNow } };
  const used = Math.max(0, cpuNow - state.lastCpu);
  const idle = used <= limits.idleCpu;
  const quiet = idle ? state.quiet + 1 : 0;
  const workSinceCollect = state.workSinceCollect + used;
  if (quiet >= limits.quietTicks && workSinceCollect >= limits.workCpu) return { collect: true, next: { workSinceCollect: 0, lastCpu: cpuNow, settling: 0, quiet } };
  // The second collection: `settleTicks` after the first, on an idle tick (light traffic meanwhile
  // keeps V8's allocation rate low; a new burst brings a first collection again).
  const settling = state.settling === null ? null : state.settling + 1;
  if (idle && settling !== null && settling >= limits.settleTicks) return { collect: true, next: { workSinceCollect: 0, lastCpu: cpuNow, settling: null, quiet } };
  return { collect: false, next: { workSinceCollect, lastCpu: cpuNow, settling, quiet } };
}

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Starts the idle collector (an unref'd timer); `stop` ends it. `collected` is called after each
 * collection: the workers collect theirs then (WorkerPool.tidy).
 */
export function startIdleCollector(collected: () => void = () => undefined): { stop(): void } {
  let state: IdleCollectorState = { workSinceCollect: 0, lastCpu: null, settling: null, quiet: 0 };
  const timer = setInterval(() => {
    const { collect, next } = idleTick(state, cpuMicros());
    state = next;
    if (!collect) return;
    const gc = fullCollection();
    if (!gc) return clearInterval(timer);
    gc();
    collected();
    // The collection's own CPU is not new work.
    state = { ...state, lastCpu: cpuMicros() };
  }, TICK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
