/**
 * How the client speaks HTTP. On Node (20.16 and later, Electron's main process) it uses
 * `node:http` itself, reached through `process.getBuiltinModule` so that nothing here names a Node
 * module a bundler for the browser would have to resolve. Elsewhere, or when the caller gives its
 * own, `fetch`.
 *
 * Why not fetch on Node: Node's fetch is undici, whose HTTP parser is WebAssembly. Its first call
 * costs 50 to 60 ms, and a process that used it waits about 150 ms at exit for V8 to finish
 * compiling that parser. For a script that signs one document and ends, that is 200 ms of a 350 ms
 * run (measured on a 2-core machine; `--liftoff-only` makes the exit wait go away, which
 * names the cause). `node:http` answers the same exchange in 8 to 12 ms and exits at once; its
 * idle keep-alive sockets are unreferenced, so they hold no process open.
 */

/** What the client reads of an answer: a subset of fetch's Response. */
export interface HttpAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface HttpExchange {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal: AbortSignal;
}

/**
 * One exchange. As fetch does: a refusal or a lost connection rejects with a TypeError whose
 * `cause` carries the system error (its `code`), and an abort rejects with the signal's reason.
 */
export type Transport = (url: string, exchange: HttpExchange) => Promise<HttpAnswer>;

/** fetch (the caller's, or the global one) as a Transport. */
export function fetchTransport(doFetch: typeof fetch): Transport {
  // A Uint8Array is a valid fetch body; the cast only bridges lib.dom's and @types/node's differing
  // BodyInit types across the two tsconfigs this file compiles under.
  // redirect 'error': a redirect would carry the request's headers and body to wherever it points
  // (node:http follows none either); the service never redirects.
  return (url, x) => doFetch(url, { method: x.method, headers: x.headers, body: x.body as unknown as string | undefined, signal: x.signal, redirect: 'error' });
}

// The parts of node:http this file uses; the package compiles without Node's types.
interface NodeIncoming {
  statusCode?: number;
  headers: Record<string, string | string[] | undefined>;
  on(event: 'data', f: (chunk: Uint8Array) => void): NodeIncoming;
  on(event: 'end', f: () => void): NodeIncoming;
  on(event: 'error' | 'aborted', f: (e?: Error) => void): NodeIncoming;
}
interface NodeRequest {
  on(event: 'response', f: (res: NodeIncoming) => void): NodeRequest;
  on(event: 'error', f: (e: Error) => void): NodeRequest;
  end(body?: Uint8Array): void;
  destroy(e?: Error): void;
}
interface NodeHttp {
  request(url: URL, options: { method: string; headers: Record<string, string | number> }): NodeRequest;
}

/**
 * node:http(s) as a Transport, or null where there is no Node underneath. node:https (and TLS with
 * it, about 10 ms to load on a 2-core machine) only for an https:// URL.
 */
export function nodeTransport(): Transport | null {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof getBuiltin !== 'function') return null;
  return (url, x) => {
    const target = new URL(url);
    return exchange(getBuiltin(target.protocol === 'https:' ? 'node:https' : 'node:http') as NodeHttp, target, x);
  };
}

function exchange(mod: NodeHttp, url: URL, x: HttpExchange): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const { signal } = x;
    if (signal.aborted) return reject(signal.reason);
    const body = typeof x.body === 'string' ? new TextEncoder().encode(x.body) : x.body;
    const headers: Record<string, string | number> = { ...x.headers };
    if (body !== undefined) headers['content-length'] = body.byteLength;
    let settled = false;
    let failBody: ((e: unknown) => void) | null = null;
    const req = mod.request(url, { method: x.method, headers });
    const onAbort = (): void => {
      req.destroy();
      if (failBody) failBody(signal.reason);
      else finish(() => reject(signal.reason));
    };
    const finish = (then: () => void): void => {
      if (settled) return;
      settled = true;
      then();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => {
      signal.removeEventListener('abort', onAbort);
      const failure = signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: e });
      if (failBody) failBody(failure);
      else finish(() => reject(failure));
    });
    req.on('response', (res) => {
      // The body is read at once (as fetch buffers it for text() and arrayBuffer()), so that a
      // connection never waits on a caller that reads late.
      const chunks: Uint8Array[] = [];
      let size = 0;
      const bytes = new Promise<Uint8Array>((done, fail) => {
        failBody = fail;
        res.on('data', (chunk) => {
          chunks.push(chunk);
          size += chunk.byteLength;
        });
        res.on('aborted', () => fail(new TypeError('fetch failed', { cause: new Error('the connection closed before the answer ended') })));
        res.on('error', (e) => fail(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: e })));
        res.on('end', () => {
          signal.removeEventListener('abort', onAbort);
          done(joined(chunks, size));
        });
      });
      bytes.catch(() => undefined); // read or not, a failed body is no unhandled rejection
      const status = res.statusCode ?? 0;
      finish(() =>
        resolve({
          ok: status >= 200 && status < 300,
          status,
          headers: { get: (name) => headerValue(res.headers[name.toLowerCase()]) },
          text: async () => new TextDecoder().decode(await bytes),
          arrayBuffer: async () => {
            const b = await bytes;
            return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? (b.buffer as ArrayBuffer) : (b.slice().buffer as ArrayBuffer);
          },
        }),
      );
    });
    req.end(body);
  });
}

function joined(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === chunks[0]!.buffer.byteLength) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function headerValue(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(', ') : v;
}
