/**
 * Measures one hostile request against a running service as a user would see it (issue 15 "Done
 * when"): from outside the service process, `/health` asked every 100 ms throughout (each answer
 * timed), the request's answer timed (a 202 is followed to its final state), and the peak resident
 * memory of the service with its PDF worker processes while it ran: the service's own VmHWM
 * (reset first: `clear_refs` 5), and the sum over the service and its children sampled every
 * 20 ms (a worker killed at its limit takes its own VmHWM with it). The polling and the sampling
 * run in a process of their own (health-watch.mjs), apart from the one sending the document.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { treeRssMiB } from './process-memory.mjs';
import { timedHealth } from './timed-health.mjs';
import type { ServiceProcess } from './service-process';

export interface ProbeResult {
  /** HTTP status of the request itself. */
  status: number;
  body: Record<string, unknown>;
  /** The final result, when the request was a sign request answered 202. */
  final: Record<string, unknown> | null;
  /** From sending the request to its answer (to the final state, for a 202). */
  answeredMs: number;
  /** The slowest /health answer while the request ran, and how many got none within 5 s. */
  healthMaxMs: number;
  healthMissed: number;
  healthCount: number;
  /** Resident memory of the service and its workers before, and the peak while the request ran, MiB. */
  rssBeforeMb: number;
  peakMb: number;
  /** The service process is still running and answers /health afterwards. */
  alive: boolean;
}

/** health-watch.mjs started on the service; `stop` closes its stdin and reads its one JSON line. */
function startWatch(url: string, pid: number): { ready: Promise<void>; stop(): Promise<{ latencies: (number | null)[]; peak: number }> } {
  const child = spawn(process.execPath, [join(__dirname, 'health-watch.mjs'), url, String(pid)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let readyNow: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (readyNow = resolve));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) readyNow();
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    ready,
    async stop() {
      child.stdin!.end();
      await exited;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error(`health-watch.mjs printed no result: ${out.slice(0, 200)}`);
      const parsed = JSON.parse(line) as { latencies: (number | null)[]; peak: number | null };
      // JSON has no NaN: the peak of a service that ended comes back null.
      return { latencies: parsed.latencies, peak: parsed.peak ?? Number.NaN };
    },
  };
}

/**
 * Runs `send` (the hostile request) while /health is polled. A 202 answer is followed through
 * `GET /v1/results/{id}` (`call` carries the application key) until it leaves PENDING.
 */
export async function probe(
  service: ServiceProcess,
  call: (path: string, init?: RequestInit) => Promise<Response>,
  send: () => Promise<Response>,
  o: { timeoutMs?: number } = {},
): Promise<ProbeResult> {
  const pid = service.child.pid!;
  // Linux ≥ 4.0: writing 5 resets the peak resident set size (VmHWM) to the current one.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const rssBeforeMb = treeRssMiB(pid);
  const watch = startWatch(service.url, pid);
  await watch.ready;
  const t0 = performance.now();
  let status = 0;
  let body: Record<string, unknown> = {};
  let final: Record<string, unknown> | null = null;
  let peak = Number.NaN;
  let latencies: (number | null)[] = [];
  try {
    const res = await send();
    status = res.status;
    body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (status === 202 && typeof body.request_id === 'string') {
      const deadline = Date.now() + (o.timeoutMs ?? 60_000);
      for (;;) {
        const r = (await (await call(`/v1/results/${body.request_id}?wait=5`)).json()) as Record<string, unknown>;
        if (r.status !== 'PENDING' || Date.now() > deadline) {
          final = r;
          break;
        }
      }
    }
  } finally {
    ({ latencies, peak } = await watch.stop());
  }
  const answeredMs = performance.now() - t0;
  const alive = service.child.exitCode === null && service.child.signalCode === null && (await timedHealth(service.url)) !== null;
  const answered = latencies.filter((l): l is number => l !== null);
  return {
    status,
    body,
    final,
    answeredMs,
    healthMaxMs: answered.length > 0 ? Math.max(...answered) : Number.POSITIVE_INFINITY,
    healthMissed: latencies.length - answered.length,
    healthCount: latencies.length,
    rssBeforeMb,
    peakMb: alive ? peak : Number.NaN,
    alive,
  };
}

/** One line for a failing assertion: what the user would have seen. */
export function describeProbe(r: ProbeResult): string {
  const error = typeof r.body.error === 'string' ? r.body.error : typeof r.final?.error === 'string' ? r.final.error : '';
  return `status ${r.status}${r.final ? ` → ${String(r.final.status)}` : ''} in ${Math.round(r.answeredMs)} ms; /health max ${Math.round(r.healthMaxMs)} ms over ${r.healthCount} (${r.healthMissed} missed); RSS ${Math.round(r.rssBeforeMb)} → peak ${Math.round(r.peakMb)} MiB; ${r.alive ? 'alive' : 'DEAD'}; ${error.slice(0, 200)}`;
}
