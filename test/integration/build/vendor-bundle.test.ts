/**
 * Issue 10 start-up: pdf-lib, fontkit, undici and the stamp font are built into
 * dist/localsign-vendor.cjs, which the service bundle reads on their first use, so Node does not
 * parse 4.8 MB on the way to the first /health. Shown from outside: the service bundle holds none of
 * them, and a service whose vendor bundle is missing still starts, answers /health and signs EVM
 * hashes; the first PDF request then fails with an error record that names the missing file.
 */
import { createRequire } from 'node:module';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBundle } from '../../helpers/cli';
import { authed, startServiceProcess, waitForResult } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

const DIST = resolve(__dirname, '../../../dist');

describe('the vendor bundle (dist/localsign-vendor.cjs)', () => {
  const tmp = makeTmpHome();
  afterAll(() => tmp.cleanup());

  it('holds pdf-lib, fontkit, undici and the font; the service bundle holds none of them', () => {
    assertBundle();
    const service = readFileSync(join(DIST, 'localsign-main.cjs'), 'utf8');
    const vendor = readFileSync(join(DIST, 'localsign-vendor.cjs'), 'utf8');
    for (const pkg of ['node_modules/pdf-lib/', 'node_modules/@pdf-lib/fontkit/', 'node_modules/undici/']) {
      expect(service, pkg).not.toContain(pkg);
      expect(vendor, pkg).toContain(pkg);
    }
    expect(statSync(join(DIST, 'localsign-main.cjs')).size).toBeLessThan(1.5 * 2 ** 20);
    // The SEA embeds it as an asset, as it does the worker bundle.
    const sea = JSON.parse(readFileSync(resolve(DIST, '../sea-config.json'), 'utf8')) as { assets: Record<string, string> };
    expect(sea.assets['localsign-vendor.cjs']).toBe('dist/localsign-vendor.cjs');
  });

  it("builds fontkit's Brotli dictionary on first use, not as the bundle loads (build/vendor/fontkit-lazy-brotli.mjs)", () => {
    assertBundle();
    const vendor = readFileSync(join(DIST, 'localsign-vendor.cjs'), 'utf8');
    // fontkit builds it in one statement; in the build it stands only inside the getter.
    const calls = [...vendor.matchAll(/dictionary\.init\(BrotliDecompressBuffer\);/g)];
    expect(calls).toHaveLength(1);
    const before = vendor.slice(calls[0]!.index - 400, calls[0]!.index);
    expect(before).toMatch(/Object\.defineProperty\(dictionary, "dictionary", \{ configurable: true, enumerable: true, get: function\(\) \{/);
  });

  it('hands the stamp font over as it is: no per-byte getters from the CommonJS interop', () => {
    // As a CommonJS export the 760 KB Uint8Array went through esbuild's __toESM, which defined a
    // getter for each index: 1.5 s and hundreds of MB on the first stamp of every start.
    const service = readFileSync(join(DIST, 'localsign-main.cjs'), 'utf8');
    const font = /var (\w+);\s*var init_DejaVuSans = __esm\(\{[^}]*?\1 = require_runtime\(\)\("node_modules\/dejavu-fonts-ttf\/ttf\/DejaVuSans\.ttf"\)/s.exec(service);
    expect(font, 'the font module is an ES module whose default is the runtime\'s value').not.toBeNull();
    expect(service).not.toMatch(/__toESM\(require_DejaVuSans/);
  });

  it('deflates and inflates with Node\'s zlib in place of pako, interchangeably with pako', () => {
    const vendor = readFileSync(join(DIST, 'localsign-vendor.cjs'), 'utf8');
    expect(vendor).not.toContain('node_modules/pako/');
    // pako comes with pdf-lib; both are CommonJS without types, hence require.
    const load = createRequire(import.meta.url);
    const shim = { default: load('../../../build/vendor/pako-zlib.cjs') as { deflate: (d: Uint8Array) => Uint8Array; inflate: (d: Uint8Array, o?: { to: 'string' }) => Uint8Array | string } };
    const pako = { default: load('pako') as { deflate: (d: Uint8Array) => Uint8Array; inflate: (d: Uint8Array) => Uint8Array } };
    const text = Buffer.from('BT /F1 10 Tf (Digitally signed by Zoë) Tj ET\n'.repeat(50));
    const ours = shim.default.deflate(text);
    expect(ours).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(pako.default.inflate(ours)).equals(text)).toBe(true);
    expect(Buffer.from(shim.default.inflate(pako.default.deflate(text)) as Uint8Array).equals(text)).toBe(true);
    expect(shim.default.inflate(ours, { to: 'string' })).toBe(text.toString('utf8'));
  });

  it('is not read at start: without it the service serves /health and EVM, and a PDF request names the missing file', async () => {
    const app = join(tmp.home, 'app');
    mkdirSync(app);
    for (const f of ['localsign.cjs', 'localsign-main.cjs', 'localsign-main.cache', 'localsign-worker.cjs']) copyFileSync(join(DIST, f), join(app, f));
    const home = join(tmp.home, 'home');
    const service = await startServiceProcess({ home, command: [process.execPath, join(app, 'localsign.cjs')], args: ['--demo'] });
    try {
      const url = service.url;
      const env = Object.fromEntries([...service.output().matchAll(/export (LOCALSIGN_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
      const call = authed(url, { key: env.LOCALSIGN_KEY!, secret: env.LOCALSIGN_SECRET! });
      expect((await fetch(`${url}/health`)).status).toBe(200);

      const evm = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: 'cd'.repeat(32), credential_key: env.LOCALSIGN_EVM_CREDENTIAL, chain_id: 1 }) });
      expect(evm.status).toBe(202);
      expect(await waitForResult(call, ((await evm.json()) as { request_id: string }).request_id)).toMatchObject({ status: 'DONE', chain_id: 1 });

      const doc = await PDFDocument.create();
      doc.addPage([200, 200]);
      const pdf = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from(await doc.save()).toString('base64'), credential_key: env.LOCALSIGN_PADES_CREDENTIAL }) });
      expect(pdf.status).toBe(500);
      const { error_id } = (await pdf.json()) as { error_id: string };
      const record = readFileSync(join(home, 'errors.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { error_id: string })
        .find((r) => r.error_id === error_id);
      expect(JSON.stringify(record)).toContain(`cannot load ${join(app, 'localsign-vendor.cjs')}`);
    } finally {
      await service.stop();
    }
  });
});
