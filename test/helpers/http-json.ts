/**
 * One HTTP(S) JSON call with what Node 20's fetch lacks: an extra trusted CA (`ca`) and a forward
 * proxy (`proxy`: absolute-form request for http targets, a CONNECT tunnel then TLS for https
 * ones, RFC 9110 §9.3.6), so tests can reach the platform double over HTTPS and through
 * connect-proxy.ts the way the service must.
 */
import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface JsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
}

export interface JsonRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string already. */
  body?: unknown;
  /** PEM of a CA to trust for an https URL. */
  ca?: string;
  /** `http://[user:pass@]host:port` of a forward proxy. */
  proxy?: string;
  timeoutMs?: number;
}

/** RFC 7617 Basic credentials from the proxy URL's userinfo, as Proxy-Authorization wants them. */
function proxyAuth(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(pair).toString('base64')}` };
}

function openTunnel(proxy: URL, target: URL, timeoutMs: number): Promise<Socket> {
  const port = target.port || '443';
  const headers: Record<string, string> = { host: `${target.hostname}:${port}`, ...proxyAuth(proxy) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: `${target.hostname}:${port}`, headers, timeout: timeoutMs });
    req.on('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(Object.assign(new Error(`proxy refused CONNECT: ${res.statusCode}`), { statusCode: res.statusCode }));
    });
    req.on('timeout', () => req.destroy(new Error('proxy CONNECT timed out')));
    req.on('error', reject);
    req.end();
  });
}

export async function requestJson(url: string, o: JsonRequestOptions = {}): Promise<JsonResponse> {
  const target = new URL(url);
  const timeoutMs = o.timeoutMs ?? 10_000;
  const payload = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
  const https = target.protocol === 'https:';
  const proxy = o.proxy ? new URL(o.proxy) : null;
  let options: RequestOptions & { ca?: string } = {
    host: target.hostname, port: target.port || (https ? 443 : 80), path: target.pathname + target.search,
    method: o.method ?? 'GET', headers, timeout: timeoutMs, ca: o.ca, agent: false,
  };
  if (proxy && https) {
    const socket = await openTunnel(proxy, target, timeoutMs);
    // No agent: http.request then takes the TLS socket from createConnection (Node _http_client.js).
    const servername = isIP(target.hostname) ? undefined : target.hostname;
    options = { ...options, agent: undefined, createConnection: () => tlsConnect({ socket, host: target.hostname, servername, ca: o.ca }) };
  } else if (proxy) {
    options = { ...options, host: proxy.hostname, port: proxy.port, path: url, headers: { host: target.host, ...headers, ...proxyAuth(proxy) } };
  }
  return new Promise((resolve, reject) => {
    const req = (https && !proxy ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(payload);
  });
}
