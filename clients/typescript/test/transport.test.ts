import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalsignClient, LocalsignConnectionError } from '../src/index';
import { nodeTransport, type Transport } from '../src/transport';

/**
 * The client's own HTTP on Node (transport.ts): what fetch gave the client, given by node:http. A
 * plain node:http server on loopback plays the service, so that each edge (a body cut short, an
 * abort while the answer arrives, an https URL) can be made on purpose.
 */
let server: Server;
let base = '';
let stall: ServerResponse | null = null;

function route(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url === '/health') {
      res.setHeader('content-type', 'application/json');
      res.setHeader('localsign-warnings', '["a", "b"]');
      return res.end(JSON.stringify({ ok: true, api_version: 2 }));
    }
    if (req.url === '/echo') {
      // What arrived: the declared length, the bytes' digest, the content type.
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ length: req.headers['content-length'], sha256: createHash('sha256').update(body).digest('hex'), type: req.headers['content-type'], method: req.method }));
    }
    if (req.url === '/big') {
      // 3 MiB in 64 KiB writes: an answer that arrives in many chunks.
      res.setHeader('content-type', 'application/pdf');
      res.setHeader('content-length', String(3 * 1024 * 1024));
      for (let i = 0; i < 48; i += 1) res.write(Buffer.alloc(64 * 1024, i));
      return res.end();
    }
    if (req.url === '/cut') {
      // Promises 1,000 bytes, sends 10, then the connection ends.
      res.setHeader('content-length', '1000');
      res.write('0123456789');
      return void setTimeout(() => res.socket?.destroy(), 20);
    }
    if (req.url === '/stall') {
      // Headers, a part of the body, then nothing until the test lets it go.
      res.setHeader('content-length', '1000');
      res.write('0123456789');
      stall = res;
      return;
    }
    if (req.url === '/never') return; // no answer at all
    res.statusCode = 404;
    res.end();
  });
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  stall?.destroy();
  server.closeAllConnections();
  server.close();
});

const transport = (): Transport => {
  const t = nodeTransport();
  expect(t, 'Node 20.16+ has process.getBuiltinModule').not.toBeNull();
  return t!;
};

describe('the client on Node speaks node:http, not fetch', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('never calls the global fetch', async () => {
    let calls = 0;
    globalThis.fetch = (async () => {
      calls += 1;
      throw new Error('fetch was called');
    }) as typeof fetch;
    const health = await new LocalsignClient({ baseUrl: base }).health();
    expect(health).toMatchObject({ ok: true, api_version: 2 });
    expect(calls).toBe(0);
  });

  it('uses fetch where Node is not underneath (no process.getBuiltinModule), and the one it is given', async () => {
    const seen: string[] = [];
    const recording = (async (url: string | URL | Request, init?: RequestInit) => {
      seen.push(`${init?.method} ${String(url)}`);
      return realFetch(url, init);
    }) as typeof fetch;
    expect((await new LocalsignClient({ baseUrl: base, fetch: recording }).health()).ok).toBe(true);
    const getBuiltinModule = process.getBuiltinModule;
    globalThis.fetch = recording;
    try {
      (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      expect(nodeTransport()).toBeNull();
      expect((await new LocalsignClient({ baseUrl: base }).health()).ok).toBe(true);
    } finally {
      process.getBuiltinModule = getBuiltinModule;
    }
    expect(seen).toEqual([`GET ${base}/health`, `GET ${base}/health`]);
  });
});

describe('nodeTransport', () => {
  it('sends a JSON text and bytes with their exact length, and reads headers as fetch does', async () => {
    const t = transport();
    const text = JSON.stringify({ name: 'Zoë Ångström', n: 1 });
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
    for (const [body, type] of [
      [text, 'application/json'],
      [bytes, 'application/pdf'],
    ] as const) {
      const res = await t(`${base}/echo`, { method: 'POST', headers: { 'content-type': type }, body, signal: new AbortController().signal });
      expect(res.ok).toBe(true);
      const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
      expect(JSON.parse(await res.text())).toEqual({ length: String(raw.length), sha256: createHash('sha256').update(raw).digest('hex'), type, method: 'POST' });
    }
    const health = await t(`${base}/health`, { method: 'GET', headers: {}, signal: new AbortController().signal });
    expect(health.headers.get('Localsign-Warnings')).toBe('["a", "b"]');
    expect(health.headers.get('x-absent')).toBeNull();
    const missing = await t(`${base}/nothing`, { method: 'GET', headers: {}, signal: new AbortController().signal });
    expect([missing.ok, missing.status]).toEqual([false, 404]);
  });

  it('gives an answer of many chunks as one ArrayBuffer, byte for byte', async () => {
    const res = await transport()(`${base}/big`, { method: 'GET', headers: {}, signal: new AbortController().signal });
    const got = new Uint8Array(await res.arrayBuffer());
    expect(got.length).toBe(3 * 1024 * 1024);
    for (let i = 0; i < 48; i += 1) expect([got[i * 65536], got[i * 65536 + 65535]]).toEqual([i, i]);
  });

  it('a body cut short rejects as fetch does (TypeError "fetch failed")', async () => {
    const res = await transport()(`${base}/cut`, { method: 'GET', headers: {}, signal: new AbortController().signal });
    await expect(res.text()).rejects.toThrow(TypeError);
    await expect(res.text()).rejects.toThrow('fetch failed');
  });

  it('an abort before the answer, or while its body arrives, rejects with the signal’s reason', async () => {
    const t = transport();
    const before = new AbortController();
    setTimeout(() => before.abort(new Error('closed before the answer')), 50);
    await expect(t(`${base}/never`, { method: 'GET', headers: {}, signal: before.signal })).rejects.toThrow('closed before the answer');
    const during = new AbortController();
    const res = await t(`${base}/stall`, { method: 'GET', headers: {}, signal: during.signal });
    const reading = res.arrayBuffer();
    during.abort(new Error('closed while reading'));
    await expect(reading).rejects.toThrow('closed while reading');
    const already = new AbortController();
    already.abort(new Error('aborted already'));
    await expect(t(`${base}/health`, { method: 'GET', headers: {}, signal: already.signal })).rejects.toThrow('aborted already');
  });

  it('a refused connection is a TypeError whose cause has the code, as the client words it', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const e = (await transport()(`http://127.0.0.1:${port}/health`, { method: 'GET', headers: {}, signal: new AbortController().signal }).catch((x: unknown) => x)) as TypeError & { cause: { code: string } };
    expect(e).toBeInstanceOf(TypeError);
    expect(e.cause.code).toBe('ECONNREFUSED');
  });

  describe('an https:// URL', () => {
    let tls: HttpsServer;
    let dir = '';
    let cert = '';
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'localsign-client-tls-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
      tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, route);
      await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    });
    afterAll(() => {
      tls?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('goes over TLS and checks the certificate (node:https)', async () => {
      const url = `https://127.0.0.1:${(tls.address() as { port: number }).port}`;
      const e = await new LocalsignClient({ baseUrl: url }).health().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LocalsignConnectionError);
      expect((e as Error).message).toBe(`localsign is not reachable at ${url} (DEPTH_ZERO_SELF_SIGNED_CERT): is \`localsign serve\` running?`);
    });
  });
});
