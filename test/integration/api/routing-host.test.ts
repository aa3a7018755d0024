import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_MESSAGE, expectError, expectRawError, rawRequest, socketRequest, type Call } from '../../helpers/api-fixtures';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * CONTRACT "HTTP: general": Host and Origin (403, every path, known or not) come first, then the
 * route (404/405), then authentication (401). Also /health, /openapi.json and /receive.
 */
const HOST_MESSAGE = 'this Host is not served; only loopback names and --allow-host names are';
const ORIGIN_MESSAGE = 'requests from this Origin are not accepted (see serve --allow-origin)';

let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: Call;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-routing-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home, args: ['--allow-host', 'Signer.Example', '--allow-origin', 'https://app.example'] });
  call = authed(svc.url, creds);
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = () => ({ home: tmp.home, reader: call });

describe('Host and Origin: 403 on every path, before route and auth', () => {
  const paths: [string, string][] = [
    ['GET', '/health'],
    ['POST', '/receive'],
    ['GET', '/nope'],
    ['GET', '/v1/credentials'],
    ['DELETE', '/v1/credentials'],
    ['POST', '/v1/pades/sign'],
    ['GET', '/openapi.json'],
  ];

  for (const [method, path] of paths) {
    it(`${method} ${path} with a foreign Host is 403`, async () => {
      const res = await rawRequest(svc.url, { method, path, headers: { Host: `evil.example:${svc.port}` } });
      await expectRawError(res, 403, HOST_MESSAGE, where());
    });
    it(`${method} ${path} with a foreign Origin is 403`, async () => {
      const res = await rawRequest(svc.url, { method, path, headers: { Host: `127.0.0.1:${svc.port}`, Origin: 'https://evil.example' } });
      await expectRawError(res, 403, ORIGIN_MESSAGE, where());
    });
  }

  it('refuses look-alike hosts and a missing Host; "null" Origin too', async () => {
    for (const host of ['127.0.0.1.nip.io', 'localhost.evil.example', '127.0.0.2', 'signer.example.evil']) {
      const res = await rawRequest(svc.url, { path: '/health', headers: { Host: host } });
      await expectRawError(res, 403, HOST_MESSAGE, where());
    }
    const noHost = await socketRequest(svc.port, 'GET /health HTTP/1.0\r\n\r\n');
    await expectRawError(noHost, 403, HOST_MESSAGE, where());
    const emptyHost = await socketRequest(svc.port, 'GET /health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n');
    await expectRawError(emptyHost, 403, HOST_MESSAGE, where());
    const nullOrigin = await rawRequest(svc.url, { path: '/health', headers: { Host: 'localhost', Origin: 'null' } });
    await expectRawError(nullOrigin, 403, ORIGIN_MESSAGE, where());
  });

  it('a Host header no URL can be built from is a 403 like any other, not a bare 400', async () => {
    for (const host of ['localhost:abc', '[::1', 'localhost:99999', 'localhost:', 'localhost/x', 'localhost@evil.example', '127.0.0.1:80:80']) {
      const res = await socketRequest(svc.port, `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect([host, res.status]).toEqual([host, 403]);
      await expectRawError(res, 403, HOST_MESSAGE, where());
    }
  });

  it('a request-target node cannot read is refused like any path: 403 for a foreign Host, else 404', async () => {
    const head = (target: string, host: string) => `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    // ("GET health" without a slash never gets this far: Node's HTTP parser answers it 400 itself.)
    for (const target of ['/health\\x', '/v1/credentials\\', '*', 'http://[bad/health']) {
      const foreign = await socketRequest(svc.port, head(target, 'evil.example'));
      expect([target, foreign.status]).toEqual([target, 403]);
      await expectRawError(foreign, 403, HOST_MESSAGE, where());
      const local = await socketRequest(svc.port, head(target, 'localhost'));
      expect([target, local.status]).toEqual([target, 404]);
      await expectRawError(local, 404, /^no route GET \//, where());
    }
  });

  it('an absolute-form request-target names the host (RFC 9112 §3.2.2), so a foreign one is 403', async () => {
    const foreign = await socketRequest(svc.port, `GET http://evil.example:${svc.port}/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    await expectRawError(foreign, 403, HOST_MESSAGE, where());
    const loopback = await socketRequest(svc.port, `GET http://localhost:${svc.port}/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(loopback.status).toBe(200);
  });

  it('serves loopback names on any port, case-insensitively, and --allow-host / --allow-origin names', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${svc.port}`, 'LOCALHOST:1', 'localhost', '[::1]', '[::1]:8300', 'signer.example', 'SIGNER.EXAMPLE:443']) {
      const res = await rawRequest(svc.url, { path: '/health', headers: { Host: host } });
      expect([host, res.status]).toEqual([host, 200]);
    }
    const allowed = await rawRequest(svc.url, { path: '/health', headers: { Host: 'localhost', Origin: 'https://APP.example' } });
    expect(allowed.status).toBe(200);
    // CONTRACT: no CORS headers are sent, even to an allowed Origin.
    expect(Object.keys(allowed.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});

describe('routes: 404 and 405 before 401', () => {
  it('unknown paths are 404 without credentials', async () => {
    // Every character of a route's path matches only itself: `.` in /openapi.json is no wildcard.
    for (const path of ['/nope', '/v1/nope', '/v1/results/', '/health/', '/v2/credentials', '/v1', '/openapiXjson', '/openapi.jsonX', '/v1/results/a/b', '/v1Xcredentials']) {
      const res = await fetch(svc.url + path);
      await expectError(res, 404, `no route GET ${path}`, where());
    }
  });

  it('unknown paths are 404 with credentials too', async () => {
    await expectError(await call('/v1/credential'), 404, 'no route GET /v1/credential', where());
  });

  const wrong: [string, string, string][] = [
    ['POST', '/health', 'GET'],
    ['DELETE', '/v1/credentials', 'GET'],
    ['GET', '/v1/pades/sign', 'POST'],
    ['GET', '/v1/blockchain/sign', 'POST'],
    ['PUT', '/v1/results/req_whatever', 'GET'],
    ['POST', '/v1/results', 'GET'],
    ['GET', '/v1/sync', 'POST'],
    ['POST', '/v1/errors', 'GET'],
    ['POST', '/v1/designs', 'GET'],
    ['GET', '/receive', 'POST'],
    ['POST', '/openapi.json', 'GET'],
    ['OPTIONS', '/v1/pades/sign', 'POST'],
  ];
  for (const [method, path, allow] of wrong) {
    it(`${method} ${path} is 405 with Allow: ${allow}, without credentials`, async () => {
      const res = await fetch(svc.url + path, { method });
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      await expectError(res, 405, `${method} is not allowed on ${path}; use ${allow}`, where());
    });
  }

  it('a known route without credentials is 401, with the same message on every /v1 route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/credentials'],
      ['GET', '/v1/designs'],
      ['GET', '/v1/results'],
      ['GET', '/v1/results/req_x'],
      ['GET', '/v1/errors'],
      ['POST', '/v1/sync'],
      ['POST', '/v1/pades/sign'],
      ['POST', '/v1/blockchain/sign'],
    ] as const) {
      const res = await fetch(svc.url + path, { method, body: method === 'POST' ? '{not json' : undefined });
      // No application: the record is the operator's (errors.jsonl only) and takes no id from the URL.
      await expectError(res, 401, AUTH_MESSAGE, where());
    }
  });
});

describe('the console', () => {
  it('prints one line per failure with the same message and error_id, never a traceback', async () => {
    const id = await expectError(await fetch(svc.url + '/v1/nothing-here'), 404, 'no route GET /v1/nothing-here', where());
    const line = `GET /v1/nothing-here -> 404: no route GET /v1/nothing-here (${id})`;
    for (let i = 0; i < 100 && !svc.output().includes(line); i++) await new Promise((r) => setTimeout(r, 20));
    expect(svc.output().split('\n').filter((l) => l.includes(id))).toEqual([expect.stringContaining(line)]);
    expect(svc.output()).not.toMatch(/\n\s+at /);
  });
});

describe('/health, /openapi.json and /receive', () => {
  it('GET /health: exact fields and values, no auth', async () => {
    const res = await fetch(svc.url + '/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['api_version', 'cache', 'commit', 'ok', 'paired', 'platform', 'service', 'tenant_id', 'version']);
    expect(body.commit).toMatch(/^([0-9a-f]{7,40}|unknown)$/);
    expect({ ...body, commit: 'x' }).toEqual({
      ok: true,
      service: 'local-signing-service',
      paired: true,
      tenant_id: 0,
      version: '0.2.0',
      commit: 'x',
      api_version: 2,
      cache: { credentials: 3, designs: 2 },
      platform: 'embedded',
    });
  });

  it('GET /openapi.json: 200, OpenAPI 3.1 JSON, no auth', async () => {
    const res = await fetch(svc.url + '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.2.0');
    for (const [path, method] of [
      ['/v1/pades/sign', 'post'],
      ['/v1/blockchain/sign', 'post'],
      ['/v1/results/{request_id}', 'get'],
      ['/v1/results', 'get'],
      ['/v1/credentials', 'get'],
      ['/v1/designs', 'get'],
      ['/v1/sync', 'post'],
      ['/v1/errors', 'get'],
      ['/health', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });

  it('POST /receive: 401 without or with a wrong X-Platform-Signature; wrapper headers never open it', async () => {
    const body = JSON.stringify({ request_id: 'req_x', status: 'DONE' });
    const ts = String(Math.floor(Date.now() / 1000));
    const variants: Record<string, string>[] = [
      {},
      { 'x-platform-timestamp': ts, 'x-platform-signature': 'sha256=' + '00'.repeat(32) },
      { 'x-platform-timestamp': ts, 'x-platform-signature': 'garbage' },
      { 'x-platform-timestamp': ts },
    ];
    for (const headers of variants) {
      const plain = await fetch(svc.url + '/receive', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      await expectError(plain, 401, 'missing or invalid platform signature', where());
      const withWrapper = await call('/receive', { method: 'POST', headers, body });
      await expectError(withWrapper, 401, 'missing or invalid platform signature', where());
    }
  });
});
