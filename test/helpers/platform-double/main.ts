/**
 * The platform double as a process: `node platform-double.cjs [--https] [--pki-dir DIR]
 * [--tenant-id N]`. Listens on 127.0.0.1:0 and prints `listening on <url>`; exits when its stdin
 * closes (the test process that spawned it died) or on SIGTERM. Agent paths (PLATFORM.md) go
 * through the failure switches, then the bearer check; `/__control/` paths never do.
 */
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { handleAgentCall, matchAgentRoute, type Reply } from './agent-routes';
import { defaultCatalogue } from './catalogue';
import { controlHandlers, matchControl } from './control-routes';
import { loadDoublePki } from './pki';
import { runUntilParentExits } from '../program-lifecycle';
import { DoubleState } from './state';
import type { DoubleInfo, LogEntry } from './types';

const { values: args } = parseArgs({
  options: { https: { type: 'boolean', default: false }, 'pki-dir': { type: 'string' }, 'tenant-id': { type: 'string', default: '4242' } },
});
const pkiDir = args['pki-dir'] ?? mkdtempSync(join(tmpdir(), 'localsign-platform-double-'));
const pki = await loadDoublePki(pkiDir, args.https);
const catalogue = defaultCatalogue(pki);
const state = new DoubleState(Number(args['tenant-id']), catalogue, pki);
let baseUrl = '';

const info = (): DoubleInfo => ({
  url: baseUrl,
  tenant_id: state.tenantId,
  root_pem: pki.rootPem,
  root_pem_path: join(pkiDir, 'root.pem'),
  root_der_path: join(pkiDir, 'root.der'),
  tls_ca_pem_path: pki.tls?.caPemPath ?? null,
  pki_dir: pkiDir,
  keys: {
    rsa: { credential_key: catalogue.keys.rsa, key_pem_path: join(pkiDir, 'signer-rsa.key'), chain_base64: pki.rsa.chain.map((c) => Buffer.from(c).toString('base64')) },
    p256: { credential_key: catalogue.keys.p256, key_pem_path: join(pkiDir, 'signer-p256.key'), chain_base64: pki.p256.chain.map((c) => Buffer.from(c).toString('base64')) },
    wallet: { credential_key: catalogue.keys.wallet, address: pki.wallet.address, private_key_hex: Buffer.from(pki.wallet.privateKey).toString('hex') },
    designs: { standard: catalogue.keys.standard, approval: catalogue.keys.approval },
  },
});
const control = controlHandlers(info);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function write(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
}

function parseJson(raw: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (raw.length === 0) return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  const path = new URL(req.url ?? '/', 'http://double').pathname;
  const method = req.method ?? 'GET';
  const parsed = parseJson(raw);
  if (path.startsWith('/__control/')) {
    const hit = matchControl(control, method, path);
    if (!hit) return write(res, { status: 404, body: { error: 'no such control path' } });
    if (!parsed.ok) return write(res, { status: 400, body: { error: 'invalid JSON' } });
    const body = (parsed.value ?? {}) as Record<string, unknown>;
    return write(res, await hit.handler(state, body, hit.param));
  }

  const { authorization, ...headers } = req.headers;
  const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  const agent = bearer ? state.agentBySecret(bearer) ?? null : null;
  const entry: LogEntry = {
    at: new Date().toISOString(), method, path, headers, agent_id: agent?.agent_id ?? null,
    body: parsed.ok ? parsed.value : raw.toString('utf8'), status: null, fault: null,
  };
  state.log.push(entry);
  res.on('finish', () => (entry.status = res.statusCode));

  const match = matchAgentRoute(method, path);
  if ('status' in match) return write(res, { status: match.status, body: { error: match.status === 404 ? 'not found' : 'method not allowed' } });
  const fault = state.takeFault(match.route);
  entry.fault = fault?.action ?? null;
  if (fault?.action === 'hang') return; // never answered; the socket stays open until the client gives up
  if (fault?.action === 'drop') return void req.socket.destroy();
  if (typeof fault?.action === 'number') return write(res, { status: fault.action, body: { error: `injected ${fault.action}` } });
  if (!parsed.ok) return write(res, { status: 400, body: { error: 'invalid JSON' } });
  const reply = handleAgentCall(state, match.route, match.param, { method, path, body: parsed.value, agent });
  if (fault?.action === 'drop-after') return void req.socket.destroy();
  write(res, reply);
}

const listener = (req: IncomingMessage, res: ServerResponse): void => {
  handle(req, res).catch((error: Error) => {
    if (!res.headersSent) write(res, { status: 500, body: { error: `double crashed: ${error.message}` } });
  });
};
const server = pki.tls ? createHttpsServer({ key: pki.tls.keyPem, cert: pki.tls.certPem }, listener) : createHttpServer(listener);
// The service's keep-alive sockets must not hold the double open on stop.
server.keepAliveTimeout = 1000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
baseUrl = `${pki.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;

runUntilParentExits(server, baseUrl, 'platform double', () => state.stop());
