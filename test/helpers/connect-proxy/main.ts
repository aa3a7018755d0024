/**
 * A small forward proxy as a process: `node connect-proxy.mjs [--auth user:pass]`, on 127.0.0.1:0,
 * printing `listening on <url>`. `CONNECT host:port` opens a tunnel (RFC 9110 §9.3.6, https
 * targets); an absolute-form request (`GET http://host/…`, RFC 9112 §3.2.2) is forwarded (http
 * targets). Each one is logged with its target. Origin-form `/__control/…` requests drive it:
 * `GET log`, `DELETE log`, `PATCH settings {refuse}` (refuse: 403 to every client). Exits when
 * its stdin closes or on SIGTERM.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { runUntilParentExits } from '../program-lifecycle';

export interface ProxyLogEntry {
  at: string;
  type: 'CONNECT' | 'FORWARD';
  /** host:port the client asked for. */
  target: string;
  /** FORWARD: the absolute URL. */
  url: string | null;
  /** What the proxy answered (200 for an open tunnel), or the target's status for FORWARD. */
  status: number;
}

const { values: args } = parseArgs({ options: { auth: { type: 'string' } } });
const expectedAuth = args.auth ? `Basic ${Buffer.from(args.auth).toString('base64')}` : null;
const log: ProxyLogEntry[] = [];
let refuse = false;
const sockets = new Set<Socket>();

/** null if the client may pass, else the status to refuse with. */
function gate(req: IncomingMessage): 403 | 407 | null {
  if (refuse) return 403;
  if (expectedAuth && req.headers['proxy-authorization'] !== expectedAuth) return 407;
  return null;
}

function control(req: IncomingMessage, res: ServerResponse, body: string): void {
  const reply = (status: number, value: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  const key = `${req.method} ${req.url}`;
  if (key === 'GET /__control/log') return reply(200, { log });
  if (key === 'DELETE /__control/log') return reply(200, { cleared: log.splice(0).length });
  if (key === 'PATCH /__control/settings') {
    refuse = Boolean((JSON.parse(body || '{}') as { refuse?: boolean }).refuse);
    return reply(200, { refuse });
  }
  reply(404, { error: 'no such control path' });
}

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const target = new URL(req.url!);
  const entry: ProxyLogEntry = { at: new Date().toISOString(), type: 'FORWARD', target: `${target.hostname}:${target.port || 80}`, url: req.url!, status: 0 };
  log.push(entry);
  const denied = gate(req);
  if (denied) {
    entry.status = denied;
    res.writeHead(denied, denied === 407 ? { 'proxy-authenticate': 'Basic realm="test"' } : {}).end();
    return;
  }
  const { 'proxy-authorization': _auth, 'proxy-connection': _pc, ...headers } = req.headers;
  const upstream = request({ host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers }, (up) => {
    entry.status = up.statusCode ?? 0;
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  upstream.on('error', () => {
    entry.status = 502;
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  upstream.end(body);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url?.startsWith('/__control/')) return control(req, res, body.toString('utf8'));
    if (/^http:\/\//i.test(req.url ?? '')) return forward(req, res, body);
    res.writeHead(400, { 'content-type': 'text/plain' }).end('a proxy wants CONNECT or an absolute-form http:// URL');
  });
});

server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
  sockets.add(client);
  client.on('close', () => sockets.delete(client));
  client.on('error', () => client.destroy());
  const [host, port] = [(req.url ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, ''), Number(/:(\d+)$/.exec(req.url ?? '')?.[1] ?? 443)];
  const entry: ProxyLogEntry = { at: new Date().toISOString(), type: 'CONNECT', target: req.url ?? '', url: null, status: 0 };
  log.push(entry);
  const denied = gate(req);
  if (denied) {
    entry.status = denied;
    client.end(`HTTP/1.1 ${denied} ${denied === 403 ? 'Forbidden' : 'Proxy Authentication Required'}\r\n${denied === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : ''}Content-Length: 0\r\n\r\n`);
    return;
  }
  const upstream = connect(port, host, () => {
    entry.status = 200;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  sockets.add(upstream);
  upstream.on('close', () => sockets.delete(upstream));
  upstream.on('error', () => {
    if (entry.status === 0) {
      entry.status = 502;
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    } else client.destroy();
  });
  client.on('close', () => upstream.destroy());
});

await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
runUntilParentExits(server, url, 'connect proxy', () => {
  for (const socket of sockets) socket.destroy();
});
