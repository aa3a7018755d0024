/**
 * Issue 31: what a worker sees of the service. A PDF worker process (handles.ts processStarter,
 * with a probe script in place of the PDF engine) gets no secret in its environment and, under
 * Node's permission model, reads only its own folder and the scratch folder, and writes only the
 * latter; a signing thread's environment holds no secret either. The real workers of the bundle
 * and of the single executable: test/integration/lifecycle/pdf-worker-sandbox.test.ts and
 * test/integration/sea/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerEnvironment } from '../../../src/config/env';
import { processStarter, THREAD_YOUNG_GENERATION_MB, threadStarter, WORKER_SEMI_SPACE_MB, type WorkerHandle } from '../../../src/workers/handles';
import { nodeOptionsValue, pdfWorkerOptions, permissionFlags } from '../../../src/workers/sandbox';
import { ALLOCATION_BURST } from '../../helpers/allocation-burst';
import { tempDir } from '../../helpers/temp-dir';

const SECRETS = { SIGNING_PIN: '0000-secret-pin', LOCALSIGN_SECRET: 'wsec_secret', HTTPS_PROXY: 'http://user:password@proxy:3128' };

/** Answers one message with its environment and what it could read and write. */
const PROBE = `
const fs = require('node:fs');
const attempt = (f) => { try { f(); return 'ok'; } catch (e) { return e.code || e.message; } };
process.on('message', (paths) => {
  process.send({
    env: process.env,
    read: Object.fromEntries(Object.entries(paths.read).map(([k, p]) => [k, attempt(() => fs.readFileSync(p))])),
    write: Object.fromEntries(Object.entries(paths.write).map(([k, p]) => [k, attempt(() => fs.writeFileSync(p, 'x'))])),
  });
});
process.send({ ready: 'localsign-worker' });
`;

/** Starts a worker, posts `message` once it listens, resolves with its first answer. */
function ask(start: (events: Parameters<ReturnType<typeof threadStarter>>[0]) => WorkerHandle, message: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const handle = start({
      ready: () => handle.post(message),
      message: (m) => {
        handle.terminate();
        resolve(m as Record<string, unknown>);
      },
      gone: (reason) => reject(new Error(`the worker ended: ${JSON.stringify(reason)}`)),
    });
  });
}

describe('the environment and files a worker has', () => {
  let dir: string;
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    dir = tempDir('localsign-sandbox-');
    for (const [name, value] of Object.entries(SECRETS)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('workerEnvironment keeps only what the runtime reads', () => {
    expect(workerEnvironment({ NODE_OPTIONS: '"--max-old-space-size=64"' }, { ...SECRETS, TZ: 'Europe/Berlin', LANG: 'de_DE.UTF-8', PATH: '/usr/bin', SystemRoot: 'C:\\Windows', NODE_OPTIONS: '--require /opt/hook.js' })).toEqual({
      TZ: 'Europe/Berlin',
      LANG: 'de_DE.UTF-8',
      SystemRoot: 'C:\\Windows',
      NODE_OPTIONS: '"--max-old-space-size=64"',
    });
  });

  it('a PDF worker process: no secret in its environment; reads its folder and the scratch folder, writes only the latter', async () => {
    // Spaces in both paths: NODE_OPTIONS quotes them (sandbox.ts nodeOptionsValue).
    const bundle = join(dir, 'dist folder');
    const home = join(dir, 'config dir');
    const scratch = join(home, 'work');
    mkdirSync(bundle);
    mkdirSync(scratch, { recursive: true });
    writeFileSync(join(bundle, 'probe.cjs'), PROBE);
    writeFileSync(join(bundle, 'vendor.cjs'), 'module.exports = 1;');
    writeFileSync(join(home, 'wrappers.json'), '{"wrappers":[]}');
    writeFileSync(join(scratch, 'xfer.tmp'), 'document');
    const entry = { command: process.execPath, args: [join(bundle, 'probe.cjs')], script: join(bundle, 'probe.cjs') };
    const answer = await ask(processStarter(entry, { heapMb: 64, scratchDir: () => scratch }), {
      read: { config: join(home, 'wrappers.json'), scratch: join(scratch, 'xfer.tmp'), bundle: join(bundle, 'vendor.cjs'), system: '/etc/hostname' },
      write: { config: join(home, 'planted.json'), scratch: join(scratch, 'answer.tmp'), bundle: join(bundle, 'planted.cjs') },
    });
    const env = answer.env as Record<string, string>;
    for (const name of Object.keys(SECRETS)) expect(env, name).not.toHaveProperty(name);
    expect(Object.keys(env).filter((n) => !['NODE_OPTIONS', 'NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE', 'TZ', 'LANG', 'LC_ALL', 'NODE_ICU_DATA'].includes(n))).toEqual([]);
    expect(answer.read).toEqual({ config: 'ERR_ACCESS_DENIED', scratch: 'ok', bundle: 'ok', system: 'ERR_ACCESS_DENIED' });
    expect(answer.write).toEqual({ config: 'ERR_ACCESS_DENIED', scratch: 'ok', bundle: 'ERR_ACCESS_DENIED' });
  });

  it('a signing thread: its own copy of the environment, with no secret', async () => {
    const code = `const { parentPort } = require('node:worker_threads'); parentPort.on('message', () => parentPort.postMessage({ names: Object.keys(process.env) }));`;
    const answer = await ask(threadStarter({ kind: 'code', code }, 'test'), 'env?');
    expect(answer.names).not.toEqual(expect.arrayContaining(['SIGNING_PIN']));
    for (const name of Object.keys(SECRETS)) expect(answer.names, name).not.toContain(name);
    expect(process.env.SIGNING_PIN).toBe(SECRETS.SIGNING_PIN);
  });
});

/**
 * Allocates as a burst of tasks does (helpers/allocation-burst.ts), then answers with the size of
 * V8's new space (its two semi-spaces): what stays resident after it.
 */
const YOUNG = `
const v8 = require('node:v8');
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
${ALLOCATION_BURST}
function burst() {
  allocationBurst(10);
  return young();
}
if (require('node:worker_threads').parentPort) {
  const port = require('node:worker_threads').parentPort;
  port.on('message', () => port.postMessage({ young: burst() }));
} else {
  process.on('message', () => process.send({ young: burst() }));
  if (process.send) process.send({ ready: 'localsign-worker' });
  else console.log(burst());
}
`;

describe('the young generation a worker keeps after a burst (handles.ts WORKER_SEMI_SPACE_MB)', () => {
  const MiB = 2 ** 20;
  let dir: string;
  beforeAll(() => {
    dir = tempDir('localsign-young-');
    writeFileSync(join(dir, 'young.cjs'), YOUNG);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a plain Node grows it to 32 MiB on this allocation (what the limits are for)', () => {
    expect(Number(execFileSync(process.execPath, [join(dir, 'young.cjs')], { encoding: 'utf8' }))).toBeGreaterThan(THREAD_YOUNG_GENERATION_MB * MiB);
  });

  it('a PDF worker process keeps two semi-spaces of WORKER_SEMI_SPACE_MB, a signing thread no more than its THREAD_YOUNG_GENERATION_MB (two semi-spaces of 8 MiB)', async () => {
    const entry = { command: process.execPath, args: [join(dir, 'young.cjs')], script: join(dir, 'young.cjs') };
    const processAnswer = await ask(processStarter(entry, { heapMb: 256, scratchDir: () => dir }), 'burst');
    const threadAnswer = await ask(threadStarter({ kind: 'code', code: YOUNG }, 'test'), 'burst');
    expect(processAnswer.young).toBeLessThanOrEqual(2 * WORKER_SEMI_SPACE_MB * MiB);
    expect(threadAnswer.young).toBeLessThanOrEqual(THREAD_YOUNG_GENERATION_MB * MiB);
  });
});

describe('permissionFlags, nodeOptionsValue', () => {
  it('names the permission model as each runtime does', () => {
    expect(permissionFlags('20.20.2')).toEqual(['--experimental-permission', '--disable-warning=ExperimentalWarning']);
    expect(permissionFlags('v22.12.0')).toEqual(['--experimental-permission', '--disable-warning=ExperimentalWarning']);
    expect(permissionFlags('22.13.0')).toEqual(['--permission']);
    expect(permissionFlags('22.23.3')).toEqual(['--permission']);
    expect(permissionFlags('24.1.0')).toEqual(['--permission']);
    expect(permissionFlags('18.19.0')).toBeNull();
  });

  it('grants each path once (Node 20 aborts on a path granted twice), reads of the bundle and scratch folders, writes of the latter', () => {
    expect(pdfWorkerOptions({ heapMb: 64, semiSpaceMb: 2, nodeVersion: '20.20.2', readFolders: ['/nonexistent/x'], scratch: '/nonexistent/x' })).toEqual([
      '--max-old-space-size=64',
      '--max-semi-space-size=2',
      '--experimental-permission',
      '--disable-warning=ExperimentalWarning',
      '--allow-fs-read=/nonexistent/x/*',
      '--allow-fs-write=/nonexistent/x/*',
    ]);
    expect(pdfWorkerOptions({ heapMb: 64, semiSpaceMb: 2, nodeVersion: '18.19.0', readFolders: [], scratch: '/nonexistent/x' })).toEqual(['--max-old-space-size=64', '--max-semi-space-size=2']);
  });

  it('quotes each option, backslashes and quotes escaped as node reads them', () => {
    expect(nodeOptionsValue(['--max-old-space-size=64', '--allow-fs-read=C:\\Users\\A B\\work\\*'])).toBe('"--max-old-space-size=64" "--allow-fs-read=C:\\\\Users\\\\A B\\\\work\\\\*"');
  });
});
