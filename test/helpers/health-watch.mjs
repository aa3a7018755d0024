/**
 * The watcher of a hostile request (hostile-probe.ts), as its own process: `/health` asked every
 * 100 ms (each answer timed) and the service's memory sampled every 20 ms, until stdin closes; then
 * one JSON line on stdout: { latencies, peak }. Its own process because the test process sends
 * the hostile document: a 200 MB body through fetch stalls that process's event loop for over a
 * second on a slow machine, and a poller there timed its own stall as the service's (the service,
 * polled from a third process at the same time, answered within 80 ms).
 *
 * node health-watch.mjs URL PID
 */
import { sampleTreePeak } from './process-memory.mjs';
import { timedHealth } from './timed-health.mjs';

const [url, pidText] = process.argv.slice(2);
const pid = Number(pidText);

const latencies = [];
const sampler = sampleTreePeak(pid);
let polling = true;
process.stdin.on('data', () => undefined);
process.stdin.on('end', () => (polling = false));
process.stdout.write('ready\n');
while (polling) {
  const started = performance.now();
  latencies.push(await timedHealth(url));
  await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - started))));
}
process.stdout.write(`${JSON.stringify({ latencies, peak: sampler.stop() })}\n`);
