/**
 * One `/health` asked as a user would (a new connection), timed: ms, or null when it got no 200
 * within 5 s. Plain JavaScript: the probe (hostile-probe.ts) and its watcher process
 * (health-watch.mjs) both use it.
 */
export async function timedHealth(url) {
  const t0 = performance.now();
  try {
    const res = await fetch(`${url}/health`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.ok ? performance.now() - t0 : null;
  } catch {
    return null;
  }
}
