// The service as npm run bench meets it: a real process, timed and measured from outside, and
// clients on node:http (keep-alive) that wait the two ways a client of the spec does.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** utime + stime of a process in seconds (USER_HZ 100). */
export function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * CPU seconds (user + system) of a process's main thread, the event loop: its thread id is the
 * process id. The rest of the process is its other threads (signing threads, V8's helpers,
 * libuv's file-system pool).
 */
export function mainThreadCpuSeconds(pid) {
  return cpuSeconds(`${pid}/task/${pid}`);
}

/**
 * Starts `serve` on a port of its own and waits for the first healthy GET /health, polled every
 * 2 ms: what "started" means to an application (issue 10: spawn to the first healthy /health).
 * `command` is [executable, ...args before `serve`].
 */
export async function startService(command, home, args = [], env = {}) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(command[0], [...command.slice(1), 'serve', '--port', String(port), ...args], {
    env: { ...process.env, LOCALSIGN_HOME: home, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`service exited before it was healthy: ${out}`);
    const ok = await new Promise((resolve) => {
      const req = http.get(`${url}/health`, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.on('error', () => resolve(false));
    });
    if (ok) break;
    await sleep(2);
  }
  const startupMs = performance.now() - t0;
  return {
    child,
    url,
    startupMs,
    output: () => out,
    exports: () => Object.fromEntries([...out.matchAll(/export (LOCALSIGN_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]])),
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
    },
  };
}

/**
 * node:http with a keep-alive agent, not fetch: undici's fetch cost the load generator more CPU
 * than the service it measured, and both share this machine's two cores.
 */
export function client(url, creds) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const headers = { 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret };
  const request = (method, path, body, type = 'application/json', binary = false) =>
    new Promise((resolve, reject) => {
      const h = body ? { ...headers, 'content-type': type, 'content-length': body.length } : headers;
      const req = http.request({ hostname, port, path, method, agent, headers: h }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const all = Buffer.concat(chunks);
          if (binary && res.statusCode === 200) return resolve({ status: res.statusCode, bytes: all });
          try {
            resolve({ status: res.statusCode, ...JSON.parse(all.toString('utf8')) });
          } catch (e) {
            reject(e);
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    post: (path, json) => request('POST', path, Buffer.from(JSON.stringify(json))),
    postRaw: (path, bytes) => request('POST', path, bytes, 'application/pdf'),
    get: (path) => request('GET', path),
    getBytes: (path) => request('GET', path, undefined, undefined, true),
    close: () => agent.destroy(),
  };
}

/** One long-poll read per result (GET ?wait=N), as the README and the TypeScript client do. */
export async function longPoll(c, id) {
  for (;;) {
    const r = await c.get(`/v1/results/${id}?wait=30`);
    if (r.status !== 'PENDING') return r;
  }
}

/** Polling without ?wait, as spec §1 describes it: ask at once, then every `everyMs`. */
export async function plainPoll(c, id, everyMs = 5) {
  for (;;) {
    const r = await c.get(`/v1/results/${id}`);
    if (r.status !== 'PENDING') return r;
    await sleep(everyMs);
  }
}

/** `clients` loops of `once()` for `seconds`: completed count, per-call latencies (sorted), elapsed. */
export async function sustain(clients, seconds, once) {
  const lat = [];
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await once();
        lat.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { done: lat.length, perSecond: lat.length / elapsed, lat, elapsed };
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
