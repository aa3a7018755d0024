/**
 * Concurrent uploads cannot take the service past its memory: four 250 MB `POST /v1/pades/verify`
 * from one key got the service OOM-killed in a 2 GiB memory cgroup (the systemd unit's
 * MemoryMax=2G). Here the service runs in such a cgroup (made for the test under this process's
 * own, cgroup v1 or v2), the four uploads are sent at once, and another application polls /health
 * and signs throughout: the service stays up, the cgroup records no OOM kill, the service with its
 * PDF workers holds less than 1.25 GiB (before the body budget: four bodies and four documents at
 * once, 2 GiB and the cgroup's limit reached), every upload is answered (200 with a report, or 503
 * with Retry-After beyond the body budget), and every request of the other application succeeds.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync, existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, HASH_A, postJson } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

const GiB = 1024 * 1024 * 1024;

/** A memory cgroup of 2 GiB under this process's own, or the reason there is none. */
function makeCgroup(): { dir: string; v2: boolean } | string {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.find((l) => /^\d+:memory:/.test(l));
  const candidates = v1
    ? [{ dir: join('/sys/fs/cgroup/memory', v1.split(':')[2]!), v2: false }]
    : [{ dir: join('/sys/fs/cgroup', lines.find((l) => l.startsWith('0::'))?.slice(3) ?? '/'), v2: true }];
  for (const c of candidates) {
    const dir = join(c.dir, `localsign-uploads-${process.pid}`);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, c.v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(2 * GiB));
      if (!c.v2 && existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), String(2 * GiB));
      return { dir, v2: c.v2 };
    } catch (error) {
      return `no memory cgroup could be made here (${(error as Error).message})`;
    }
  }
  return 'no memory cgroup controller';
}

const cgroup = makeCgroup();
const skip = typeof cgroup === 'string' ? cgroup : null;

function ooms(): number {
  if (typeof cgroup === 'string') return 0;
  const file = cgroup.v2 ? 'memory.events' : 'memory.oom_control';
  const m = /oom_kill (\d+)/.exec(readFileSync(join(cgroup.dir, file), 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** A valid one-page PDF carrying `mb` MB of data in one unreferenced stream: a large document to read. */
function largePdf(mb: number): Buffer {
  const head = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n', 'latin1');
  const data = Buffer.alloc(mb * 1024 * 1024, 'localsign ');
  const stream = Buffer.concat([Buffer.from(`4 0 obj\n<< /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream\nendobj\n')]);
  const offsets = [9, head.indexOf('2 0 obj'), head.indexOf('3 0 obj'), head.length];
  const xrefAt = head.length + stream.length;
  const xref = `xref\n0 5\n0000000000 65535 f\r\n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n\r\n`).join('')}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([head, stream, Buffer.from(xref)]);
}

let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let owner: { key: string; secret: string };
let other: ReturnType<typeof authed>;

beforeAll(async () => {
  if (skip) return;
  tmp = makeTmpHome('localsign-uploads-');
  owner = initEmbeddedWithWrapper(tmp.home);
  other = authed('', parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', '--name', 'other'], { home: tmp.home })));
  svc = await startServiceProcess({ home: tmp.home });
  // The service and the PDF workers it starts from now on are in the 2 GiB cgroup.
  writeFileSync(join((cgroup as { dir: string }).dir, 'cgroup.procs'), String(svc.child.pid));
  const base = svc.url;
  const inner = other;
  other = (path, init) => inner(base + path, init);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
  if (typeof cgroup !== 'string') {
    try {
      rmdirSync(cgroup.dir);
    } catch {
      /* a process still inside: the cgroup goes when it ends */
    }
  }
});

/** health-watch.mjs beside the test (its own process): /health timed, the service's memory sampled. */
async function watchService(): Promise<{ stop(): Promise<{ latencies: number[]; peak: number }> }> {
  const child = spawn(process.execPath, [join(__dirname, '../../helpers/health-watch.mjs'), svc.url, String(svc.child.pid)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('ready\n') && resolve()));
  return {
    stop: async () => {
      child.stdin.end();
      await new Promise((resolve) => child.on('exit', resolve));
      return JSON.parse(out.split('\n').filter(Boolean).pop()!) as { latencies: number[]; peak: number };
    },
  };
}

function upload(body: Buffer): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: svc.port, method: 'POST', path: '/v1/pades/verify', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-wrapper-key': owner.key, 'x-wrapper-secret': owner.secret } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(skip !== null)(`four 250 MB verify uploads at once in a 2 GiB memory cgroup${skip ? ` (${skip})` : ''}`, () => {
  it('the service stays up, nothing is OOM-killed, each upload is answered, and another application is served throughout', async () => {
    const pdf = largePdf(180);
    const body = Buffer.concat([Buffer.from('{"pdf_base64":"'), Buffer.from(pdf.toString('base64')), Buffer.from('"}')]);
    expect(body.length).toBeGreaterThan(250 * 1000 * 1000);
    const evm = (await credentialKeys(other)).evm[0]!;
    let stop = false;
    const served: number[] = [];
    const beside = (async () => {
      while (!stop) {
        expect((await fetch(`${svc.url}/health`)).status).toBe(200);
        const posted = await postJson(other, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: evm });
        expect(posted.status).toBe(202);
        expect((await waitForResult(other, ((await posted.json()) as { request_id: string }).request_id)).status).toBe('DONE');
        served.push(Date.now());
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const watch = await watchService();
    const answers = await Promise.all([1, 2, 3, 4].map(() => upload(body)));
    const { latencies, peak } = await watch.stop();
    stop = true;
    await beside;
    // What the service holds with its PDF workers (resident, from /proc, sampled every 20 ms by a
    // process of its own): one upload's body and document at a time, not four (1.75 GB and more).
    expect(peak, `peak ${Math.round(peak)} MiB`).toBeLessThan(1280);
    expect(Math.max(...latencies), 'the slowest /health during the uploads, ms').toBeLessThan(1_000);
    expect(answers.every((a) => a.status === 200 || (a.status === 503 && a.retryAfter === '2')), JSON.stringify(answers)).toBe(true);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    expect(served.length).toBeGreaterThan(0);
    expect(ooms()).toBe(0);
    expect(svc.child.exitCode).toBeNull();
    expect((await fetch(`${svc.url}/health`)).status).toBe(200);
  }, 300_000);
});
