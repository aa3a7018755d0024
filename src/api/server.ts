import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { AppContext } from '../context';
import { recoverPending } from '../requests/recovery';
import { applyRetention } from '../requests/retention';
import { preloadJobs } from '../signing/job-runner';
import { createApp } from './app';

export interface RunningService {
  host: string;
  port: number;
  url: string;
  /** Stops accepting, finishes in-flight HTTP exchanges within `graceMs`, waits for jobs, closes stores. */
  close(graceMs?: number): Promise<void>;
}

const RETENTION_SWEEP_MS = 60_000;

/** A name no Host check serves (RFC 6761 §6.4: .invalid never resolves). */
const UNSERVED_HOST = 'unparseable-host.invalid';

/**
 * @hono/node-server answers a bare 400 (empty body, no error record) when it cannot build a URL
 * from the Host header ("localhost:abc", "[::1", "localhost@evil.example"). CONTRACT: any Host
 * that is not served gets 403 with {error, error_id}; so such a header is swapped for a name that
 * is never served, and the app's Host check refuses and records it like any other.
 */
export function neutraliseUnparseableHost(req: IncomingMessage): void {
  const host = req.headers.host;
  if (host === undefined) return;
  let ok = false;
  try {
    // node-server's own test (buildUrl): the URL's hostname must be the header without its port.
    const expected = (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase();
    ok = new URL(`http://${host}/`).hostname === expected;
  } catch {
    ok = false;
  }
  if (!ok) req.headers.host = UNSERVED_HOST;
}

/**
 * Same idea for the request-target: node-server answers a bare 400 to one it cannot read (a
 * backslash in the path, no leading "/", an absolute URL that does not parse). As a path no route
 * has, it meets the Host check (403) and then the router (404), each with its error record.
 */
export function neutraliseUnreadableTarget(req: IncomingMessage): void {
  const target = req.url ?? '';
  if (target.startsWith('/')) {
    // RFC 3986 §2: "\" is not a URI character; percent-encoded it is plain data in the path.
    if (target.includes('\\')) req.url = target.replace(/\\/g, '%5C');
    return;
  }
  if (/^https?:\/\//i.test(target)) {
    try {
      new URL(target);
      return;
    } catch {
      /* falls through */
    }
  }
  req.url = '/' + encodeURIComponent(target);
}

/**
 * Starts the service on a context: journal compaction, retention, recovery of PENDING requests
 * (issue 2: nothing stays PENDING after a restart), then the listener.
 */
export async function startService(ctx: AppContext): Promise<RunningService> {
  const { store, registry, jobs } = ctx.requests;
  await store.compact();
  const retain = () =>
    applyRetention(store, {
      now: ctx.now(),
      maxAgeMs: ctx.config.retentionMs,
      maxResults: ctx.config.retentionMaxResults,
      removeWorkFile: (id) => ctx.removeWorkFile(id),
    });
  await retain();
  const recovered = await recoverPending({
    store,
    registry,
    hasWorkFile: (id) => ctx.hasWorkFile(id),
    resume: (e) => jobs.start(e),
    workFiles: { list: () => ctx.listWorkFiles(), remove: (id) => ctx.removeWorkFile(id) },
  });
  if (recovered.resumed + recovered.failed > 0) {
    ctx.log.warn(`after restart: ${recovered.resumed} request(s) resumed, ${recovered.failed} set to ERROR`);
  }
  const sweep = setInterval(() => void retain().catch((e) => ctx.log.error(`retention sweep failed: ${String(e)}`)), RETENTION_SWEEP_MS);
  sweep.unref();

  const app = createApp(ctx);
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: ctx.config.host,
    createServer: ((options: object, listener: (req: IncomingMessage, res: never) => void) =>
      createServer(options, (req, res) => {
        neutraliseUnparseableHost(req);
        neutraliseUnreadableTarget(req);
        listener(req, res as never);
      })) as unknown as typeof createServer,
  }) as Server;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ctx.config.port, ctx.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  setImmediate(preloadJobs);
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    host: address.address,
    port: address.port,
    url: `http://${hostForUrl}:${address.port}`,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        clearInterval(sweep);
        registry.releaseWaiters();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        await closed;
        clearTimeout(timer);
        // Jobs still running get the rest of the grace; what remains PENDING resumes next start.
        await jobs.drain(Math.max(0, graceMs / 2));
        await ctx.close();
      })();
      return closing;
    },
  };
}
