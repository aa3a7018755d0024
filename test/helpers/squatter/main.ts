/**
 * A program that stands in for the service, as another user of the machine could (issue 31):
 * `node squatter.mjs --host H --port P [--relay URL]`, printing `listening on <url>`. It records
 * every request it receives, headers and body, for the test to read (`GET /__control/log`).
 * - Alone it answers like the service, but cannot prove it is: every answer carries a made-up
 *   X-Localsign-Proof, /health says it is the service, a sign request is accepted, a result is a
 *   made-up signature.
 * - With `--relay URL` it forwards everything to the real service there and back, so each answer
 *   carries the service's own proof, but replaces what `PUT /__control/forge {json, pdf_base64}`
 *   says: a DONE result's JSON fields, and the bytes of GET /v1/results/{id}/pdf.
 * Exits when its stdin closes or on SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { runUntilParentExits } from '../program-lifecycle';

export interface SquatterLogEntry {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as latin1 text, so any byte of a document can be searched for. */
  body: string;
}

const { values: args } = parseArgs({ options: { host: { type: 'string' }, port: { type: 'string' }, relay: { type: 'string' } } });
const log: SquatterLogEntry[] = [];
let forge: { json?: Record<string, unknown>; pdf_base64?: string } = {};

const madeUp = (): string => randomBytes(32).toString('hex');

function control(req: IncomingMessage, res: ServerResponse, body: string): void {
  const reply = (value: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  if (req.method === 'GET' && req.url === '/__control/log') return reply({ log });
  if (req.method === 'PUT' && req.url === '/__control/forge') {
    forge = JSON.parse(body || '{}') as typeof forge;
    return reply({ forge: Object.keys(forge) });
  }
  res.writeHead(404).end();
}

/** Answers as the service would, without the secret to prove it. */
function mimic(req: IncomingMessage, res: ServerResponse): void {
  const json = (status: number, value: unknown): void =>
    void res.writeHead(status, { 'content-type': 'application/json', 'x-localsign-proof': madeUp() }).end(JSON.stringify(value));
  const path = (req.url ?? '').split('?')[0]!;
  if (path === '/health') return json(200, { ok: true, service: 'local-signing-service', paired: true, tenant_id: 0, version: '0.2.0', commit: 'squat', api_version: 2, cache: { credentials: 1, designs: 0 }, platform: 'embedded' });
  if (req.method === 'POST' && path.startsWith('/v1/')) return json(202, { request_id: 'req_squatter0000000', status: 'PENDING' });
  if (path.startsWith('/v1/results/')) return json(200, { request_id: 'req_squatter0000000', status: 'DONE', r: `0x${madeUp()}`, s: `0x${'1'.repeat(64)}`, v: 27, y_parity: 0, address: '0x000000000000000000000000000000000000dEaD', chain_id: null });
  if (path === '/v1/credentials') return json(200, { credentials: [{ credential_key: 'squat', type: 'evm', name: 'squat', engine: 'chip', default_design_key: null, address: '0x000000000000000000000000000000000000dEaD' }] });
  json(404, { error: `no route ${req.method} ${path}`, error_id: 'err_squatter' });
}

/** Forwards to the real service; a DONE result comes back as `forge` says, under the service's proof. */
function relay(req: IncomingMessage, res: ServerResponse, body: Buffer, upstream: URL): void {
  const headers = { ...req.headers, host: upstream.host };
  const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
    const chunks: Buffer[] = [];
    answer.on('data', (c: Buffer) => chunks.push(c));
    answer.on('end', () => {
      let out = Buffer.concat(chunks);
      const path = (req.url ?? '').split('?')[0]!;
      if (answer.statusCode === 200 && /^\/v1\/results\/[^/]+\/pdf$/.test(path) && forge.pdf_base64) out = Buffer.from(forge.pdf_base64, 'base64');
      else if (answer.statusCode === 200 && /^\/v1\/results\/[^/]+$/.test(path)) {
        const result = JSON.parse(out.toString('utf8')) as Record<string, unknown>;
        if (result.status === 'DONE') out = Buffer.from(JSON.stringify({ ...result, ...(forge.json ?? {}), ...(forge.pdf_base64 && 'pdf_base64' in result ? { pdf_base64: forge.pdf_base64 } : {}) }));
      }
      const { 'content-length': _length, 'transfer-encoding': _te, ...kept } = answer.headers;
      res.writeHead(answer.statusCode ?? 502, { ...kept, 'content-length': String(out.length) }).end(out);
    });
  });
  up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  up.end(body);
}

const upstream = args.relay ? new URL(args.relay) : null;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url?.startsWith('/__control/')) return control(req, res, body.toString('utf8'));
    log.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString('latin1') });
    if (upstream) relay(req, res, body, upstream);
    else mimic(req, res);
  });
});

const host = args.host ?? '127.0.0.1';
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(Number(args.port ?? 0), host, resolve);
});
const port = (server.address() as { port: number }).port;
runUntilParentExits(server, `http://${host.includes(':') ? `[${host}]` : host}:${port}`, 'squatter');
