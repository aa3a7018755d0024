/**
 * A real forward proxy process on 127.0.0.1 (program: `connect-proxy/main.ts`) for the corporate
 * network tests: point `HTTPS_PROXY`/`HTTP_PROXY` at `proxy.url` and read `proxy.requests()` to
 * prove the traffic went through it. CONNECT tunnels serve https targets, absolute-form requests
 * http ones. Switches: `setRefuse(true)` answers 403 to every client; `auth` makes it demand
 * `Proxy-Authorization: Basic` (407 without), with `proxy.urlWithAuth` carrying the credentials.
 */
import { fileURLToPath } from 'node:url';
import { startChildProgram } from './child-program';
import { requestJson } from './http-json';
import type { ProxyLogEntry } from './connect-proxy/main';

export type { ProxyLogEntry } from './connect-proxy/main';

const PROGRAM = fileURLToPath(new URL('./connect-proxy/main.ts', import.meta.url));

export interface ConnectProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** `http://user:pass@127.0.0.1:PORT` when started with `auth`, else the same as `url`. */
  urlWithAuth: string;
  /** The proxy's process id (gone once `stop()` resolves). */
  pid: number;
  /** Every tunnel and forwarded request so far, oldest first. */
  requests(): Promise<ProxyLogEntry[]>;
  clearRequests(): Promise<void>;
  setRefuse(refuse: boolean): Promise<void>;
  output(): string;
  stop(): Promise<void>;
}

export async function startConnectProxy(o: { auth?: { user: string; password: string } } = {}): Promise<ConnectProxy> {
  const args = o.auth ? ['--auth', `${o.auth.user}:${o.auth.password}`] : [];
  const program = await startChildProgram(PROGRAM, args);
  const ctl = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await requestJson(`${program.url}/__control/${path}`, { method, body });
    if (res.status !== 200) throw new Error(`proxy control ${method} ${path} -> ${res.status} ${res.text}`);
    return res.body as T;
  };
  const withAuth = new URL(program.url);
  if (o.auth) {
    withAuth.username = encodeURIComponent(o.auth.user);
    withAuth.password = encodeURIComponent(o.auth.password);
  }
  return {
    url: program.url,
    urlWithAuth: withAuth.toString().replace(/\/$/, ''),
    pid: program.child.pid!,
    requests: async () => (await ctl<{ log: ProxyLogEntry[] }>('GET', 'log')).log,
    clearRequests: async () => void (await ctl('DELETE', 'log')),
    setRefuse: async (refuse) => void (await ctl('PATCH', 'settings', { refuse })),
    output: program.output,
    stop: program.stop,
  };
}
