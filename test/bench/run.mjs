// npm run bench: the issue-2/3 speed and memory targets, measured against the built bundle running
// as a real service on this machine. Never part of `npm test`. Prints one line per figure and a JSON
// summary (also written to bench-results.json) so README figures name their source.
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const ROOT = resolve(new URL('.', import.meta.url).pathname, '../..');
const BUNDLE = join(ROOT, 'dist/localsign.cjs');
const only = process.argv.slice(2);
const want = (name) => only.length === 0 || only.includes(name);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ms = (x) => Math.round(x * 100) / 100;

async function startService(home, args = []) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : []), BUNDLE, 'serve', '--port', '0', ...args], {
    env: { ...process.env, LOCALSIGN_HOME: home, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise((res, rej) => {
    const on = (d) => {
      if (process.env.BENCH_TRACE) process.stderr.write(String(d).split('\n').filter((l) => l.startsWith('TRACE')).map((l) => l + '\n').join(''));
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) res(m[1]);
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (c) => rej(new Error(`service exited ${c}: ${out}`)));
  });
  const startupMs = performance.now() - t0;
  const exports = Object.fromEntries([...out.matchAll(/export (LOCALSIGN_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  return { child, url, startupMs, exports, out: () => out };
}

function peakRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/**
 * node:http with a keep-alive agent, not fetch: undici's fetch cost the load generator more CPU
 * than the service it measured (9.6 s of client CPU against 2.5 s of service CPU in one run),
 * and both share this machine's two cores.
 */
function client(url, exports) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const headers = { 'x-wrapper-key': exports.LOCALSIGN_KEY, 'x-wrapper-secret': exports.LOCALSIGN_SECRET, 'content-type': 'application/json' };
  const request = (method, path, body) =>
    new Promise((resolve, reject) => {
      const req = http.request({ hostname, port, path, method, agent, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (e) {
            reject(e);
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  return { post: (path, body) => request('POST', path, body), get: (path) => request('GET', path) };
}

/** One long-poll read per result (GET ?wait=N), as a client of this API would do it. */
async function untilDone(c, id) {
  for (;;) {
    const r = await c.get(`/v1/results/${id}?wait=30`);
    if (r.status !== 'PENDING') return r;
  }
}

async function smallPdf() {
  const d = await PDFDocument.create();
  const p = d.addPage([595, 842]);
  p.drawText('localsign benchmark', { x: 50, y: 780, size: 20, font: await d.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await d.save()).toString('base64');
}

async function largePdf(targetBytes) {
  // An uncompressed image stream makes the size without making pdf-lib slow.
  const d = await PDFDocument.create();
  const page = d.addPage([595, 842]);
  const chunk = 8 * 1024 * 1024;
  for (let made = 0; made < targetBytes; made += chunk) {
    const stream = d.context.stream(Buffer.alloc(chunk, 0x41), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1] });
    d.context.register(stream);
  }
  page.drawText('large', { x: 50, y: 780, size: 20, font: await d.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await d.save({ useObjectStreams: false }));
}

/** Bundles test/bench/<name> (TypeScript) with esbuild and runs it in a fresh process; its last line is JSON. */
async function runHarness(name, args) {
  const { build } = await import('esbuild');
  const outfile = join(home, name.replace(/\.ts$/, '.cjs'));
  await build({ entryPoints: [join(ROOT, 'test/bench', name)], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', loader: { '.ttf': 'binary' }, logLevel: 'error' });
  return JSON.parse(execFileSync(process.execPath, [outfile, ...args], { encoding: 'utf8' }).trim().split('\n').at(-1));
}

const summary = { machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version }, results: {} };
const record = (name, value, target) => {
  summary.results[name] = { value, target };
  console.log(`${name.padEnd(34)} ${String(value).padStart(10)}   target ${target}`);
};

const home = mkdtempSync(join(tmpdir(), 'localsign-bench-'));
try {
  // Start-up: time from spawn to the listening line, on an already initialised home.
  const first = await startService(home, ['--demo']);
  const c = client(first.url, first.exports);
  first.child.kill('SIGTERM');
  await new Promise((r) => first.child.on('exit', r));
  const startups = [];
  for (let i = 0; i < 5; i += 1) {
    const s = await startService(home);
    startups.push(s.startupMs);
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.on('exit', r));
  }
  startups.sort((a, b) => a - b);
  if (want('startup')) record('start-up (spawn -> listening), p50', `${ms(percentile(startups, 50))} ms`, '<= 200 ms');

  const svc = await startService(home, process.env.BENCH_WORKERS ? ['--workers', process.env.BENCH_WORKERS] : []);
  const api = client(svc.url, first.exports);
  const pades = first.exports.LOCALSIGN_PADES_CREDENTIAL;
  const evm = first.exports.LOCALSIGN_EVM_CREDENTIAL;

  if (want('pades')) {
    const body = JSON.stringify({ pdf_base64: await smallPdf(), credential_key: pades });
    for (let i = 0; i < 20; i += 1) await untilDone(api, (await api.post('/v1/pades/sign', body)).request_id); // warm-up
    const lat = [];
    for (let i = 0; i < 200; i += 1) {
      const t = performance.now();
      const r = await untilDone(api, (await api.post('/v1/pades/sign', body)).request_id);
      if (r.status !== 'DONE') throw new Error(JSON.stringify(r));
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    record('small PDF sign POST->DONE, p50', `${ms(percentile(lat, 50))} ms`, '<= 10 ms');
    record('small PDF sign POST->DONE, p99', `${ms(percentile(lat, 99))} ms`, '(info)');
  }

  if (want('evm')) {
    const clients = 64;
    const durationMs = Number(process.env.BENCH_SECONDS ?? 10) * 1000;
    const lat = [];
    let done = 0;
    const hash = () => '0x' + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
    const cpuOf = (pid) => {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, seconds (USER_HZ 100)
    };
    const serviceCpu0 = cpuOf(svc.child.pid);
    const clientCpu0 = process.cpuUsage();
    const end = performance.now() + durationMs;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < end) {
          const t = performance.now();
          const { request_id } = await api.post('/v1/blockchain/sign', JSON.stringify({ tx_hash: hash(), credential_key: evm, chain_id: 1 }));
          const r = await untilDone(api, request_id);
          if (r.status !== 'DONE') throw new Error(JSON.stringify(r));
          lat.push(performance.now() - t);
          done += 1;
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    lat.sort((a, b) => a - b);
    record('EVM signatures/s at 64 clients', Math.round(done / elapsed), '>= 2000/s');
    record('EVM POST->DONE p99 at 64 clients', `${ms(percentile(lat, 99))} ms`, '<= 25 ms');
    const clientCpu = process.cpuUsage(clientCpu0);
    record('  CPU: service / load generator', `${ms(cpuOf(svc.child.pid) - serviceCpu0)} s / ${ms((clientCpu.user + clientCpu.system) / 1e6)} s`, `(info, over ${ms(elapsed)} s on ${cpus().length} cores)`);
  }

  if (want('results')) {
    // Fill to 10,000 stored results, then time the list.
    const have = (await api.get('/v1/results?limit=1000')).results.length;
    let stored = have >= 1000 ? 1000 : have;
    const target = 10_000;
    const countAll = async () => {
      // The API caps at 1000; count from the journal instead.
      const lines = readFileSync(join(home, 'requests.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"t":"c"'));
      return lines.length;
    };
    stored = await countAll();
    const batch = 64;
    while (stored < target) {
      await Promise.all(
        Array.from({ length: Math.min(batch, target - stored) }, () =>
          api.post('/v1/blockchain/sign', JSON.stringify({ tx_hash: '0x' + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex'), credential_key: evm })),
        ),
      );
      stored += batch;
    }
    const lat = [];
    for (let i = 0; i < 200; i += 1) {
      const t = performance.now();
      const r = await api.get('/v1/results');
      lat.push(performance.now() - t);
      if (r.results.length !== 50) throw new Error(`expected 50 results, got ${r.results.length}`);
    }
    lat.sort((a, b) => a - b);
    record(`GET /v1/results after ${await countAll()} requests, p50`, `${ms(percentile(lat, 50))} ms`, '<= 2 ms');
  }

  svc.child.kill('SIGTERM');
  await new Promise((r) => svc.child.on('exit', r));

  if (want('engine')) {
    // The engine alone, in a fresh process.
    const bigFile = join(home, 'large.pdf');
    writeFileSync(bigFile, await largePdf(100 * 1024 * 1024));
    const out = await runHarness('engine-large.ts', [bigFile]);
    record(`engine alone: ${Math.round(out.bytes / 2 ** 20)} MB PDF prepare+sign+finish+verify`, `${ms(out.seconds)} s`, 'a few seconds');
    record('  engine peak RSS', `${out.peakRssMb} MB`, `~3x size = ${Math.round((3 * out.bytes) / 2 ** 20)} MB (after reading the file: ${out.rssBeforeMb} MB)`);
  }

  if (want('stamp')) {
    const out = await runHarness('stamp.ts', []);
    record('drawing one stamp, p50 of 30', `${ms(out.p50)} ms`, '(info: part of the small-PDF figure)');
  }

  if (want('der')) {
    // Why src/der/ is our own and not node-forge's asn1 (issue 8 "one DER module").
    const out = await runHarness('der.ts', []);
    record('DER: read a certificate', `${ms(out.ours.certificate)} µs`, `(info: node-forge ${ms(out.forge.certificate)} µs)`);
    record('DER: read a CMS SignedData', `${ms(out.ours.signedData)} µs`, `(info: node-forge ${ms(out.forge.signedData)} µs)`);
  }

  if (want('ltv')) {
    // Issue 12: B-LT and B-LTA for a small PDF, OCSP, CRLs and the TSA on loopback (openssl).
    const out = await runHarness('ltv.ts', []);
    record('small PDF B-T (TSA on loopback), p50', `${ms(out.p50Ms['B-T'])} ms`, '(info: the baseline below)');
    record('small PDF B-LT (+OCSP, 2 CRLs, DSS), p50', `${ms(out.p50Ms['B-LT'])} ms`, '(info)');
    record('small PDF B-LTA (+document timestamp), p50', `${ms(out.p50Ms['B-LTA'])} ms`, '(info)');
  }

  if (want('large')) {
    const big = await largePdf(100 * 1024 * 1024);
    const s = await startService(home, ['--max-body', String(512 * 1024 * 1024)]);
    const a = client(s.url, first.exports);
    const baseline = peakRssMb(s.child.pid);
    const t = performance.now();
    const body = JSON.stringify({ pdf_base64: big.toString('base64'), credential_key: pades });
    const { request_id } = await a.post('/v1/pades/sign', body);
    const r = await untilDone(a, request_id);
    const took = performance.now() - t;
    if (r.status !== 'DONE') throw new Error(JSON.stringify(r).slice(0, 300));
    const peak = peakRssMb(s.child.pid);
    record(`${Math.round(big.length / 2 ** 20)} MB PDF sign POST->DONE`, `${ms(took / 1000)} s`, 'a few seconds');
    record('  peak RSS of the service', `${Math.round(peak)} MB`, `~3x size = ${Math.round((3 * big.length) / 2 ** 20)} MB (idle ${Math.round(baseline)} MB)`);
    s.child.kill('SIGTERM');
    await new Promise((res) => s.child.on('exit', res));
  }
  writeFileSync(join(ROOT, 'bench-results.json'), JSON.stringify(summary, null, 2) + '\n');
} finally {
  rmSync(home, { recursive: true, force: true });
}
