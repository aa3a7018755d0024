/**
 * Outbound HTTP(S) for everything that leaves the machine: the remote platform, the timestamp
 * authority. Desktops in companies reach the internet through a proxy, often a TLS-inspecting
 * one, so every call honours the operator's proxy settings (HTTPS_PROXY/HTTP_PROXY/NO_PROXY, read
 * by config/env.ts and passed in) and trusts extra CA certificates on top of the system's.
 *
 * undici's EnvHttpProxyAgent does the proxy work (CONNECT tunnels for https targets, absolute-form
 * requests for http ones, NO_PROXY matching by host, domain suffix and port); it is the Node
 * project's own HTTP client, and a CONNECT implementation of ours would only repeat it.
 */
import type { SecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
import { TransportError } from './transport-error';

/** undici loads on the first outbound call, not at start-up: nothing but the listener on the way to /health. */
const loadUndici = () => import('undici');
/**
 * node:tls on first use, with undici: nothing on the way to the service's first /health loads it.
 * process.getBuiltinModule, not import(): a single executable's main script has no dynamic import.
 */
const loadTls = async (): Promise<typeof import('node:tls')> => (process.getBuiltinModule?.('node:tls') as typeof import('node:tls') | undefined) ?? import('node:tls');

export interface NetSettings {
  /** Proxy for http:// targets, or null for none. */
  httpProxy: string | null;
  /** Proxy for https:// targets, or null for none (then httpProxy, as curl and undici do). */
  httpsProxy: string | null;
  /** Comma- or space-separated hosts (`host`, `.domain`, `*.domain`, `host:port`, `*`) never proxied. */
  noProxy: string | null;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Whole exchange, connect to last byte. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Largest answer body accepted. */
  maxBytes?: number;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * A TLS context with the default trust store (Node's bundled roots plus NODE_EXTRA_CA_CERTS, which
 * Node reads at start) and `extraCaPem` added: passing `ca` alone would replace the default store.
 */
function trustWith(tls: typeof import('node:tls'), extraCaPem: string | null | undefined): SecureContext | undefined {
  if (!extraCaPem) return undefined;
  const context = tls.createSecureContext();
  for (const pem of extraCaPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    context.context.addCACert(pem);
  }
  return context;
}

export class HttpClient {
  private dispatcher: Promise<Dispatcher> | null = null;

  constructor(
    private readonly net: NetSettings,
    private readonly extraCaPem?: string | null,
  ) {}

  private agent(): Promise<Dispatcher> {
    this.dispatcher ??= Promise.all([loadUndici(), loadTls()]).then(([{ EnvHttpProxyAgent }, tlsModule]) => {
      const secureContext = trustWith(tlsModule, this.extraCaPem);
      const tls = secureContext ? { secureContext } : {};
      // Explicit values (never undefined): EnvHttpProxyAgent would otherwise read process.env
      // itself, and only config/env.ts reads the environment (STYLE §3.5).
      return new EnvHttpProxyAgent({
        httpProxy: this.net.httpProxy ?? '',
        httpsProxy: this.net.httpsProxy ?? this.net.httpProxy ?? '',
        noProxy: this.net.noProxy ?? '',
        connect: tls,
        requestTls: tls,
        proxyTls: tls,
      } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
    });
    return this.dispatcher;
  }

  async request(o: HttpRequest): Promise<HttpAnswer> {
    const target = describeTarget(o.url);
    const timeout = AbortSignal.timeout(o.timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
    const [{ request }, dispatcher] = await Promise.all([loadUndici(), this.agent()]);
    try {
      const res = await request(o.url, {
        method: o.method,
        headers: o.headers,
        body: o.body,
        signal,
        dispatcher,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
      });
      const limit = o.maxBytes ?? DEFAULT_MAX_BYTES;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          res.body.destroy();
          throw new TransportError(`${target} sent more than ${limit} bytes`, { retryable: false });
        }
        chunks.push(chunk);
      }
      const type = res.headers['content-type'];
      const contentType = (Array.isArray(type) ? type[0] : type) ?? '';
      return { status: res.statusCode, contentType: contentType.split(';')[0]!.trim().toLowerCase(), body: Buffer.concat(chunks, size) };
    } catch (error) {
      if (error instanceof TransportError) throw error;
      if (o.signal?.aborted) throw new TransportError(`call to ${target} was cancelled`, { retryable: false, cause: error, aborted: true });
      if (timeout.aborted) throw new TransportError(`${target} did not answer within ${o.timeoutMs} ms`, { retryable: true, cause: error, timedOut: true });
      throw new TransportError(`${target} is unreachable: ${causeOf(error)}`, { retryable: true, cause: error });
    }
  }

  /** Ends every connection now, in-flight calls included (they fail): used at shutdown. */
  async close(): Promise<void> {
    if (this.dispatcher) await (await this.dispatcher).destroy();
  }
}

/** Scheme, host and port only: a URL may carry credentials in its userinfo or query. */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * The innermost cause in a few words ("connect ECONNREFUSED 127.0.0.1:9", "self-signed
 * certificate in certificate chain"): "fetch failed" alone tells an operator nothing.
 */
export function causeOf(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error && (e as { cause?: unknown }).cause instanceof Error; depth += 1) e = (e as { cause: Error }).cause;
  const err = e as { code?: string; message?: string };
  const message = (err?.message ?? String(e)).split('\n')[0]!.slice(0, 200);
  const tls = err?.code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(err.code);
  return tls ? `${message} (TLS: trust the platform's CA with init --platform-ca FILE or NODE_EXTRA_CA_CERTS)` : message;
}
