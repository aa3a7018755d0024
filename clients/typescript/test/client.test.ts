import { spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallPdf } from '../../../test/helpers/api-fixtures';
import { parseJson, runCli } from '../../../test/helpers/cli';
import { generateLargeImage } from '../../../test/helpers/pdf-corpus';
import { runPdfsig } from '../../../test/helpers/pdf-tools';
import { startPlatformDouble, type PlatformDouble } from '../../../test/helpers/platform-double';
import { initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../../test/helpers/service-process';
import { makeTmpHome } from '../../../test/helpers/tmp-home';
import { pairWith } from '../../../test/integration/platform/_platform';
import { LocalsignApiError, LocalsignApiVersionError, LocalsignClient, LocalsignConnectionError, fromBase64, type PadesResult, type StampLocation } from '../src/index';

/** The client against the real service process (issue 11), and each error status it can meet. */
const TX_HASH = '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';
const ERR_ID = /^err_[A-Za-z0-9_-]+$/;

async function apiError(p: Promise<unknown>): Promise<LocalsignApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(LocalsignApiError);
  return e as LocalsignApiError;
}

describe('@localsign/client against a running service', () => {
  const home = makeTmpHome();
  const unpairedHome = makeTmpHome();
  const slowHome = makeTmpHome();
  let service: ServiceProcess;
  let unpaired: ServiceProcess;
  let slow: ServiceProcess;
  let hangingTsa: Server;
  let client: LocalsignClient;
  let unpairedClient: LocalsignClient;
  let slowClient: LocalsignClient;
  let creds: { key: string; secret: string };
  let pades = '';
  let evm = '';

  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(home.home);
    const slowCreds = initEmbeddedWithWrapper(slowHome.home);
    const unpairedCreds = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: unpairedHome.home }));
    // A timestamp authority that never answers keeps PAdES requests PENDING (for the abort test).
    hangingTsa = createServer(() => undefined);
    await new Promise<void>((r) => hangingTsa.listen(0, '127.0.0.1', r));
    const tsa = `http://127.0.0.1:${(hangingTsa.address() as { port: number }).port}/`;
    [service, unpaired, slow] = await Promise.all([
      startServiceProcess({ home: home.home, args: ['--max-body', '100000'] }),
      startServiceProcess({ home: unpairedHome.home }),
      startServiceProcess({ home: slowHome.home, args: ['--tsa-url', tsa] }),
    ]);
    client = new LocalsignClient({ baseUrl: service.url, ...creds });
    unpairedClient = new LocalsignClient({ baseUrl: unpaired.url, ...unpairedCreds });
    slowClient = new LocalsignClient({ baseUrl: slow.url, ...slowCreds });
    const list = await client.listCredentials();
    pades = list.credentials.find((c) => c.type === 'pades')!.credential_key;
    evm = list.credentials.find((c) => c.type === 'evm')!.credential_key;
  });
  afterAll(async () => {
    await Promise.all([service, unpaired, slow].map((s) => s?.stop()));
    hangingTsa?.close();
    for (const h of [home, unpairedHome, slowHome]) h.cleanup();
  });

  it('health needs no key', async () => {
    const health = await new LocalsignClient({ baseUrl: service.url }).health();
    expect(health).toMatchObject({ ok: true, service: 'local-signing-service', paired: true, tenant_id: 0, api_version: 2, version: '0.2.0' });
  });

  it('signs a PDF from bytes; waitFor gives the signed PDF, which pdfsig accepts', async () => {
    const input = await smallPdf('client test');
    const accepted = await client.signPdf({ pdf: new Uint8Array(input), credential_key: pades, reason: 'Client test', signer_name: 'Ana' });
    expect(accepted.status).toBe('PENDING');
    const result = await client.waitFor(accepted.request_id);
    expect(result.status).toBe('DONE');
    const pdf = fromBase64((result as PadesResult).pdf_base64);
    expect(Buffer.from(pdf.subarray(0, input.length)).equals(input)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'localsign-client-'));
    try {
      writeFileSync(join(dir, 'signed.pdf'), pdf);
      const sig = await runPdfsig(join(dir, 'signed.pdf'));
      expect(sig.signatures.map((s) => s.validation)).toEqual(['Signature is Valid.']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a large document raw (application/pdf) and reads the signed PDF back without base64', async () => {
    const input = await smallPdf('client raw transport');
    // `raw` forces what `auto` does from 8 MiB on; the variables travel as var.NAME parameters.
    const accepted = await client.signPdf({ pdf: new Uint8Array(input), credential_key: pades, reason: 'Raw', variables: { reference: 'R-1' } }, { transport: 'raw' });
    const result = await client.waitFor(accepted.request_id);
    expect(result.status).toBe('DONE');
    const pdf = await client.getResultPdf(accepted.request_id);
    expect(Buffer.from(pdf).equals(Buffer.from(fromBase64((result as PadesResult).pdf_base64)))).toBe(true);
    expect(Buffer.from(pdf.subarray(0, input.length)).equals(input)).toBe(true);
    const missing = await client.getResultPdf('req_nope').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, message: 'no request req_nope' });
  });

  it('verifies a signed PDF on the service: one valid signature covering the whole document', async () => {
    const accepted = await client.signPdf({ pdf: new Uint8Array(await smallPdf('client verify')), credential_key: pades });
    await client.waitFor(accepted.request_id);
    const report = await client.verifyPdf({ pdf: await client.getResultPdf(accepted.request_id) });
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]).toMatchObject({ digest_valid: true, covers_whole_document: true });
    const unsigned = await client.verifyPdf({ pdf: new Uint8Array(await smallPdf('unsigned')) });
    expect(unsigned).toEqual({ valid: false, signatures: [], problems: [] });
  });

  it('signs a hash; ethers recovers the address from r, s, v', async () => {
    const accepted = await client.signHash({ tx_hash: TX_HASH, credential_key: evm, chain_id: 1 });
    const result = await client.waitFor(accepted.request_id, { pollSeconds: 5 });
    if (result.status !== 'DONE' || !('r' in result)) throw new Error(`unexpected ${JSON.stringify(result)}`);
    expect([37, 38]).toContain(result.v);
    expect(recoverAddress(TX_HASH, Signature.from({ r: result.r, s: result.s, v: result.v }))).toBe(result.address);
  });

  it('lists results, credentials, designs and errors; syncs', async () => {
    const results = await client.listResults({ limit: 2 });
    expect(results.results).toHaveLength(2);
    expect(results.results[0]).toMatchObject({ kind: 'blockchain', status: 'DONE', credential_key: evm });
    expect((await client.listCredentials()).credentials.map((c) => c.type).sort()).toEqual(['evm', 'pades', 'pades']);
    expect((await client.listDesigns()).designs.map((d) => d.name)).toContain('Standard signature stamp');
    expect(await client.sync()).toMatchObject({ ok: true, credentials: 3, designs: 2 });
    await apiError(client.getResult('req_nope'));
    const errors = await client.listErrors({ limit: 1 });
    expect(errors.errors[0]).toMatchObject({ status: 404, request_id: null });
  });

  it('every error status is a LocalsignApiError with status, error_id and kind', async () => {
    const wrong = await apiError(new LocalsignClient({ baseUrl: service.url, key: creds.key, secret: 'wsec_wrong' }).listCredentials());
    expect([wrong.status, wrong.kind]).toEqual([401, 'unauthorized']);
    expect(wrong.error_id).toMatch(ERR_ID);

    const scoped = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', '--credential', pades], { home: home.home }));
    const forbidden = await apiError(new LocalsignClient({ baseUrl: service.url, ...scoped }).signHash({ tx_hash: TX_HASH, credential_key: evm }));
    expect([forbidden.status, forbidden.kind, forbidden.message]).toEqual([403, 'forbidden', 'this application key may not use that credential_key']);

    const missing = await apiError(client.getResult('req_unknown'));
    expect([missing.status, missing.kind, missing.message]).toEqual([404, 'not_found', 'no request req_unknown']);

    const notPaired = await apiError(unpairedClient.signHash({ tx_hash: TX_HASH, credential_key: evm }));
    expect([notPaired.status, notPaired.kind]).toEqual([409, 'not_paired']);
    expect(notPaired.error_id).toMatch(ERR_ID);

    const tooLarge = await apiError(client.signPdf({ pdf: new Uint8Array(200_000), credential_key: pades }));
    expect([tooLarge.status, tooLarge.kind]).toEqual([413, 'too_large']);

    const invalid = await apiError(client.signHash({ tx_hash: '0x12', credential_key: evm }));
    expect([invalid.status, invalid.kind, invalid.message]).toEqual([422, 'invalid', 'tx_hash must be 64 hex digits after an optional 0x prefix, got 2 hex digits']);
    expect(invalid.error_id).toMatch(ERR_ID);

    const notPdf = await apiError(client.signPdf({ pdf_base64: 'aGVsbG8=', credential_key: pades }));
    expect(notPdf.status).toBe(422);
    expect(notPdf.message).toMatch(/%PDF-/);
  });

  it("waitForPdf gives the result's warnings with the PDF: a signer name too long for the stamp, in any script", async () => {
    const input = await smallPdf('client warnings');
    const name = `Жанна ${'Ж'.repeat(994)}`;
    const filled = { reason: 'Approval', location: 'Madrid', variables: { reference: 'INV-42' } };
    const long = await client.signPdf({ pdf: new Uint8Array(input), credential_key: pades, signer_name: name, ...filled });
    const done = await client.waitForPdf(long.request_id);
    expect(done.status).toBe('DONE');
    const { warnings, stamp } = done as { warnings: string[]; stamp: StampLocation | null };
    expect(warnings).toEqual([expect.stringMatching(/^stamp line 1 was shortened to fit the stamp's width at 6 pt: \d+ of its 1020 characters are shown, cut with "…" \("Digitally signed by Жанна ЖЖЖ/)]);
    // The PDF route carries them in a header as ASCII JSON: the same text as the JSON result's.
    const json = (await client.getResult(long.request_id)) as PadesResult;
    expect(warnings).toEqual(json.warnings);
    // Where the stamp is: from the PDF route's header, the same as the JSON result's `stamp`.
    expect(stamp).toEqual({ page: 1, page_count: 1, rect: [36, 36, 276, 108] });
    expect(stamp).toEqual(json.stamp);
    const short = await client.signPdf({ pdf: new Uint8Array(input), credential_key: pades, signer_name: 'Ana', ...filled });
    expect(await client.waitForPdf(short.request_id)).toMatchObject({ status: 'DONE', warnings: [] });
  });

  it('refuses a base URL without http:// or https:// at once, instead of "not reachable"', () => {
    for (const baseUrl of ['127.0.0.1:8300', 'localhost:8300', 'ftp://127.0.0.1:8300', ' ']) {
      expect(() => new LocalsignClient({ baseUrl }), baseUrl).toThrow(TypeError);
      expect(() => new LocalsignClient({ baseUrl }), baseUrl).toThrow(/^base URL must start with http:\/\/ or https:\/\/ \(got "/);
    }
    expect(() => new LocalsignClient({ baseUrl: 'http://local host:8300' })).toThrow('base URL "http://local host:8300" is not a valid URL');
    expect(new LocalsignClient({ baseUrl: 'HTTP://127.0.0.1:8300//' }).baseUrl).toBe('HTTP://127.0.0.1:8300');
  });

  it('a service that is not running is a LocalsignConnectionError', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const e = await new LocalsignClient({ baseUrl: `http://127.0.0.1:${port}` }).health().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(LocalsignConnectionError);
    expect((e as Error).message).toBe(`localsign is not reachable at http://127.0.0.1:${port} (ECONNREFUSED): is \`localsign serve\` running?`);
  });

  it('waitFor stops when its AbortSignal fires, and after timeoutMs', async () => {
    const key = (await slowClient.listCredentials()).credentials.find((c) => c.type === 'pades')!.credential_key;
    const accepted = await slowClient.signPdf({ pdf: await smallPdf(), credential_key: key });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the user closed the window')), 300);
    await expect(slowClient.waitFor(accepted.request_id, { signal: controller.signal })).rejects.toThrow('the user closed the window');
    await expect(slowClient.waitFor(accepted.request_id, { timeoutMs: 300 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await slowClient.getResult(accepted.request_id)).status).toBe('PENDING');
  });
});

describe('@localsign/client against services it cannot use as such', () => {
  let old: HttpServer;
  let base = '';
  const seen: string[] = [];
  let pendingAnswers = 0;

  beforeAll(async () => {
    // A pre-0.2.0 service (spec §9): /health without version, commit and api_version, and no
    // long poll (it answers PENDING at once, whatever ?wait says).
    // Its keyed answers prove it holds wsec_x (the client believes no other), and its one DONE
    // result is the EIP-155 example's signature, made by its one evm credential.
    const eip155 = JSON.parse(readFileSync(resolve(__dirname, '../../../test/vectors/evm/eip155-example.json'), 'utf8')) as { address: string; r: string; s: string };
    const hex = (decimal: string) => `0x${BigInt(decimal).toString(16).padStart(64, '0')}`;
    const proofKey = createHmac('sha256', createHash('sha256').update('wsec_x').digest()).update('localsign-service-proof-key-v1').digest();
    old = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      const nonce = /,n=([0-9a-f]+),/.exec(String(req.headers['x-wrapper-signature']))?.[1];
      if (nonce) res.setHeader('x-localsign-proof', createHmac('sha256', proofKey).update(`localsign-service-proof-v1\nwrp_x\n${nonce}`).digest('hex'));
      if (req.url === '/health') return res.end(JSON.stringify({ ok: true, service: 'local-signing-service', paired: true, tenant_id: 3, cache: { credentials: 1, designs: 0 } }));
      if (req.url === '/v1/credentials') return res.end(JSON.stringify({ credentials: [{ credential_key: 'evm-1', type: 'evm', name: 'EIP-155 example', engine: 'chip', default_design_key: null, address: eip155.address }] }));
      if (req.url?.startsWith('/v1/results/req_1')) {
        pendingAnswers += 1;
        return res.end(JSON.stringify(pendingAnswers < 4 ? { request_id: 'req_1', status: 'PENDING' } : { request_id: 'req_1', status: 'DONE', r: hex(eip155.r), s: hex(eip155.s), v: 37, y_parity: 0, address: eip155.address, chain_id: 1 }));
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: 'no route', error_id: 'err_x' }));
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(old.address() as { port: number }).port}`;
  });
  afterAll(() => old?.close());

  it('refuses the three 0.2.0 endpoints on an api_version 1 service, before calling them', async () => {
    const client = new LocalsignClient({ baseUrl: base, key: 'wrp_x', secret: 'wsec_x' });
    for (const call of [() => client.listResults(), () => client.listErrors(), () => client.sync()]) {
      const e = await call().catch((err: unknown) => err);
      expect(e).toBeInstanceOf(LocalsignApiVersionError);
      expect((e as LocalsignApiVersionError).found).toBe(1);
    }
    await expect(client.listResults()).rejects.toThrow('GET /v1/results needs api_version 2 (localsign 0.2.0 or later); the service at this address reports api_version 1: upgrade it');
    expect(seen.filter((s) => s.startsWith('GET /v1/results') || s.startsWith('GET /v1/errors') || s.startsWith('POST /v1/sync'))).toEqual([]);
  });

  it('waitFor backs off and keeps polling a service that answers PENDING at once', async () => {
    const result = await new LocalsignClient({ baseUrl: base, key: 'wrp_x', secret: 'wsec_x' }).waitFor('req_1');
    expect(result.status).toBe('DONE');
    expect(seen.filter((s) => s.startsWith('GET /v1/results/req_1'))).toEqual(Array(4).fill('GET /v1/results/req_1?wait=25'));
  });
});

describe('@localsign/client with a large document', () => {
  const home = makeTmpHome();
  let service: ServiceProcess;
  let hangingTsa: Server;
  let timingOut: ServiceProcess;
  const timingOutHome = makeTmpHome();
  afterAll(async () => {
    await Promise.all([service, timingOut].map((s) => s?.stop()));
    hangingTsa?.close();
    home.cleanup();
    timingOutHome.cleanup();
  });

  it('sends 9 MB raw on its own (transport auto) and waitForPdf gives the signed bytes, never base64', async () => {
    const creds = initEmbeddedWithWrapper(home.home);
    service = await startServiceProcess({ home: home.home });
    const seen: { method: string; path: string; type: string | null }[] = [];
    const recording: typeof fetch = async (url, init) => {
      const headers = new Headers(init?.headers);
      seen.push({ method: init?.method ?? 'GET', path: new URL(String(url)).pathname + new URL(String(url)).search, type: headers.get('content-type') });
      return fetch(url, init);
    };
    const client = new LocalsignClient({ baseUrl: service.url, ...creds, fetch: recording });
    const pades = (await client.listCredentials()).credentials.find((c) => c.type === 'pades')!.credential_key;
    const input = Buffer.from(generateLargeImage(9));
    const accepted = await client.signPdf({ pdf: input, credential_key: pades });
    const result = await client.waitForPdf(accepted.request_id);
    expect(result.status).toBe('DONE');
    const signed = Buffer.from((result as { pdf: Uint8Array }).pdf);
    expect(signed.subarray(0, input.length).equals(input)).toBe(true);
    const file = join(home.home, 'large.pdf');
    writeFileSync(file, signed);
    expect((await runPdfsig(file)).signatures[0]!.validation).toBe('Signature is Valid.');
    const sign = seen.find((r) => r.path.startsWith('/v1/pades/sign'))!;
    expect(sign).toMatchObject({ method: 'POST', type: 'application/pdf' });
    // Only the PDF route was read for the result: no base64 copy of the document came back.
    expect(seen.filter((r) => r.path.startsWith(`/v1/results/${accepted.request_id}`)).map((r) => r.path)).toEqual([`/v1/results/${accepted.request_id}/pdf?wait=25`]);
  });

  it('waitForPdf returns an ERROR result as the result', async () => {
    hangingTsa = createServer(() => undefined);
    await new Promise<void>((r) => hangingTsa.listen(0, '127.0.0.1', r));
    const creds = initEmbeddedWithWrapper(timingOutHome.home);
    timingOut = await startServiceProcess({ home: timingOutHome.home, args: ['--tsa-url', `http://127.0.0.1:${(hangingTsa.address() as { port: number }).port}/`, '--request-timeout', '2'] });
    const client = new LocalsignClient({ baseUrl: timingOut.url, ...creds });
    const pades = (await client.listCredentials()).credentials.find((c) => c.type === 'pades')!.credential_key;
    const accepted = await client.signPdf({ pdf: new Uint8Array(await smallPdf('times out')), credential_key: pades });
    expect(await client.waitForPdf(accepted.request_id, { pollSeconds: 1 })).toMatchObject({ request_id: accepted.request_id, status: 'ERROR', error: 'signing did not complete within 2 s', error_id: expect.stringMatching(ERR_ID) });
  });
});

describe('@localsign/client as a package', () => {
  let double: PlatformDouble;
  const home = makeTmpHome();
  afterAll(async () => {
    await double?.stop();
    home.cleanup();
  });

  it('a platform that fails is a 502 (kind upstream) from sync', async () => {
    double = await startPlatformDouble();
    await pairWith(double, home.home);
    const creds = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: home.home }));
    const service = await startServiceProcess({ home: home.home });
    try {
      await double.control.addFault({ path: '*', action: 502 });
      const e = await apiError(new LocalsignClient({ baseUrl: service.url, ...creds }).sync());
      expect([e.status, e.kind]).toEqual([502, 'upstream']);
      expect(e.error_id).toMatch(ERR_ID);
    } finally {
      await service.stop();
    }
  });

  it('installs into an application from the tarball the build writes (npm install, offline) and runs there', async () => {
    const root = resolve(__dirname, '../../..');
    const { version } = JSON.parse(readFileSync(resolve(__dirname, '../package.json'), 'utf8')) as { version: string };
    const tarball = join(root, 'dist', `localsign-client-${version}.tgz`);
    expect(existsSync(tarball), 'npm run build writes it (build/client-pack.mjs)').toBe(true);
    const app = mkdtempSync(join(tmpdir(), 'localsign-client-app-'));
    try {
      writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true,"type":"module"}');
      // The README's command, offline: the client has no dependencies to fetch.
      const npm = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: app, encoding: 'utf8' });
      expect(npm.status, npm.stdout + npm.stderr).toBe(0);
      expect(readdirSync(join(app, 'node_modules/@localsign/client/dist'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'client.js']));
      writeFileSync(join(app, 'main.js'), [
        "import { LocalsignClient, LocalsignConnectionError } from '@localsign/client';",
        "try { new LocalsignClient({ baseUrl: '127.0.0.1:8300' }); } catch (e) { console.log(e.message); }",
        "const e = await new LocalsignClient({ baseUrl: 'http://127.0.0.1:9' }).health().catch((err) => err);",
        "console.log(e instanceof LocalsignConnectionError);",
      ].join('\n'));
      const run = spawnSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' });
      expect(run.stdout.split('\n').slice(0, 2), run.stderr).toEqual(['base URL must start with http:// or https:// (got "127.0.0.1:8300"; for example http://127.0.0.1:8300)', 'true']);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it('compiles with its own tsconfig and runs on plain Node, no bundler', async () => {
    const out = mkdtempSync(join(tmpdir(), 'localsign-client-build-'));
    try {
      const root = resolve(__dirname, '..');
      const tsc = spawnSync(process.execPath, [resolve(root, '../../node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--outDir', out], { encoding: 'utf8' });
      expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
      writeFileSync(join(out, 'package.json'), '{"type":"module"}');
      const mod = (await import(pathToFileURL(join(out, 'index.js')).href)) as typeof import('../src/index');
      const e = await new mod.LocalsignClient({ baseUrl: 'http://127.0.0.1:9' }).health().catch((err: unknown) => err);
      expect(e).toBeInstanceOf(mod.LocalsignConnectionError);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
