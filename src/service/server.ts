import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { AppContext } from '../context';
import { recoverPending } from '../requests/recovery';
import { applyRetention } from '../requests/retention';
import { createApp, createReceiveApp, rawErrorAnswer } from '../api/app';
import { removeStaleTemps } from '../config/home-safety';
import { isLoopbackAddress } from '../config/loopback';
import { ConfigurationError } from '../domain/errors';
import { answerClientError } from './client-error';
import { ConnectionCap } from './connection-cap';
import { closeGentlyWhenBodyUnread } from './early-answer';
import { startIdleCollector } from './idle-memory';
import { refuseUnsafeListen } from './listen-policy';

export interface RunningService {
  host: string;
  port: number;
  url: string;
  /** The receive-only listener's /receive URL (serve --receive-listen), or null. */
  receiveUrl: string | null;
  /** Stops accepting, finishes in-flight HTTP exchanges within `graceMs`, waits for jobs, closes stores. */
  close(graceMs?: number): Promise<void>;
}

const RETENTION_SWEEP_MS = 60_000;
/** Compaction and retention wait this long after the listener, off the way to the first /health. */
const HOUSEKEEPING_DELAY_MS = 250;

/** A name no Host check serves (RFC 6761 §6.4: .invalid never resolves). */
const UNSERVED_HOST = 'unparseable-host.invalid';

/**
 * Host headers already found parseable: the answer depends on the text alone, and the clients of
 * one machine send a handful ("127.0.0.1:8300", "localhost:8300", "[::1]:8300"). Parsing a URL
 * was about 3% of the service's CPU for a GET /v1/results/{id} (a CPU profile under 16 polling
 * clients, on a 2-core machine). Bounded, so that no client can grow it.
 */
const parseableHosts = new Set<string>();
const PARSEABLE_HOSTS_KEPT = 32;

/**
 * @hono/node-server answers a bare 400 (empty body, no error record) when it cannot build a URL
 * from the Host header ("localhost:abc", "[::1", "localhost@evil.example"). CONTRACT: any Host
 * that is not served gets 403 with {error, error_id}; so such a header is swapped for a name that
 * is never served, and the app's Host check refuses and records it like any other.
 */
export function neutraliseUnparseableHost(req: IncomingMessage): void {
  const host = req.headers.host;
  if (host === undefined || parseableHosts.has(host)) return;
  let ok = false;
  try {
    // node-server's own test (buildUrl): the URL's hostname must be the header without its port.
    const expected = (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase();
    ok = new URL(`http://${host}/`).hostname === expected;
  } catch {
    ok = false;
  }
  if (!ok) req.headers.host = UNSERVED_HOST;
  else if (parseableHosts.size < PARSEABLE_HOSTS_KEPT) parseableHosts.add(host);
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

/** Node's default whole-request limit (server.requestTimeout), kept: a 256 MiB body needs time. */
const REQUEST_TIMEOUT_MS = 300_000;

/** Node's default largest header section (--max-http-header-size), named in the 431 message. */
const MAX_HEADER_BYTES = 16 * 1024;

/** A listener for `app`, with the request fix-ups above, once it is listening. */
async function listen(ctx: AppContext, app: { fetch: (request: Request, env: never) => Response | Promise<Response> }, host: string, port: number, cap: ConnectionCap): Promise<Server> {
  const server = createAdaptorServer({
    fetch: app.fetch as never,
    hostname: host,
    // An unread body is ours to handle (early-answer.ts): the adapter's own clean-up drained it
    // for 500 ms, then reset a client still writing.
    autoCleanupIncoming: false,
    createServer: ((options: object, listener: (req: IncomingMessage, res: never) => void) =>
      createServer(
        // A request without Host reaches the app's Host check (403 with its record, CONTRACT)
        // instead of Node's bare 400 (requireHostHeader, RFC 9112 §3.2).
        {
          ...options,
          requireHostHeader: false,
          maxHeaderSize: MAX_HEADER_BYTES,
          // Node checks headersTimeout/requestTimeout on this interval (default 30 s): a slow
          // client would hold its socket up to 30 s past --header-timeout.
          connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(ctx.config.headerTimeoutMs / 4))),
        },
        closeGentlyWhenBodyUnread((req, res) => {
          neutraliseUnparseableHost(req);
          neutraliseUnreadableTarget(req);
          listener(req, res as never);
        }),
      )) as unknown as typeof createServer,
  }) as Server;
  server.keepAliveTimeout = 5_000;
  cap.attach(server);
  // Abuse: a client trickling its header section holds its socket --header-timeout at
  // most (slowloris); its body is bounded by --body-timeout of silence (read-body.ts) and by
  // Node's whole-request limit. Both answer 408 with the uniform body (client-error.ts).
  server.headersTimeout = ctx.config.headerTimeoutMs;
  server.requestTimeout = Math.max(REQUEST_TIMEOUT_MS, ctx.config.headerTimeoutMs);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    answerClientError(error, socket, {
      answer: (e, context) => rawErrorAnswer(ctx, e, context),
      aborted: (message) => ctx.log.info(message),
      limits: { headerTimeoutMs: server.headersTimeout, requestTimeoutMs: server.requestTimeout, maxHeaderBytes: MAX_HEADER_BYTES },
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * The other loopback family's address for `host` (127.0.0.1 for ::1 and the reverse), null when
 * `host` is not loopback. `localhost` is both: 127.0.0.1 first.
 */
export function loopbackPair(host: string): [string, string | null] {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost') return ['127.0.0.1', '::1'];
  if (!isLoopbackAddress(h)) return [host, null];
  return [host, h.includes(':') && !h.startsWith('::ffff:') ? '127.0.0.1' : '::1'];
}

/** A bind that failed because the machine has no such address family or address (no IPv6 loopback). */
const NO_SUCH_ADDRESS = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT', 'EINVAL']);

/**
 * The API's listener on the configured address and, for a loopback address, on the other loopback
 * family's address at the same port. `localhost` resolves to ::1 first on most systems (the default
 * hosts files of Debian, Ubuntu, Fedora and macOS), so a family left free would let any other user
 * of the machine answer the applications that call `localhost`, and collect their secrets,
 * documents and PINs. The service holds both or does not start: a program already on the twin
 * address is named. A machine without the twin family (no IPv6) leaves nothing to take there.
 * With port 0 the twin must take the port the first listener got: a clash is tried again.
 */
async function listenOnLoopback(ctx: AppContext, app: Parameters<typeof listen>[1], cap: ConnectionCap): Promise<[Server, Server | null]> {
  const [host, twinHost] = loopbackPair(ctx.config.host);
  for (let attempt = 0; ; attempt += 1) {
    const server = await listen(ctx, app, host, ctx.config.port, cap);
    if (!twinHost) return [server, null];
    const port = (server.address() as AddressInfo).port;
    try {
      return [server, await listen(ctx, app, twinHost, port, cap)];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (NO_SUCH_ADDRESS.has(code)) {
        ctx.log.info(`no ${twinHost} on this machine (${code}): listening on ${host} only`);
        return [server, null];
      }
      await closeWithin(server, 0);
      if (code === 'EADDRINUSE' && ctx.config.port === 0 && attempt < 5) continue;
      if (code === 'EADDRINUSE') {
        const where = twinHost.includes(':') ? `[${twinHost}]:${port}` : `${twinHost}:${port}`;
        throw new ConfigurationError(
          `port ${port} is already in use on ${where} by another program: applications that call localhost:${port} could reach it instead of this service, so localsign does not start beside it; stop that program (ss -ltnp 'sport = :${port}' names it) or choose another port with --port`,
          { cause: error },
        );
      }
      throw error;
    }
  }
}

function urlOf(server: Server): string {
  const a = server.address() as AddressInfo;
  return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
}

/** Stops accepting and ends in-flight exchanges within `graceMs`. */
async function closeWithin(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
}

/**
 * Starts the service on a context: recovery of PENDING requests (nothing stays PENDING after a
 * restart), the listener, then journal compaction and retention in the background (nothing but the
 * listener and the store index on the way to the first /health; the journal rewrite waits for
 * queued appends and takes new ones after it, so requests may arrive meanwhile).
 */
export async function startService(ctx: AppContext): Promise<RunningService> {
  refuseUnsafeListen(ctx.config);
  const remote = !isLoopbackAddress(ctx.config.host);
  // Workers started and warmed beside the service's own start, never on a request's path
  // (context.prewarm; `serve` has started them already, before it loaded this module).
  ctx.prewarm();
  // Under the instance lock: no other writer of work/ and results/ (temp files a crash left).
  const temps = removeStaleTemps(ctx.paths);
  if (temps > 0) ctx.log.info(`removed ${temps} half-written temp file(s) left by an earlier run`);
  const { store, registry, jobs } = ctx.requests;
  const retain = () =>
    applyRetention(store, {
      now: ctx.now(),
      maxAgeMs: ctx.config.retentionMs,
      maxResults: ctx.config.retentionMaxResults,
      // Only a kind that holds a document has files (its table says so, signing/kinds/); the four
      // removals of files an EVM request never had were most of a sweep's work after an EVM burst.
      forget: (e) => (ctx.kinds.holdsDocument(e.kind) ? ctx.documents.forget(e.requestId) : undefined),
    });
  // A small document is journaled with its PENDING request (store/document-store.ts JOURNALED_INPUT_MAX).
  ctx.documents.restoreJournaled(store.journaledInputs());
  const recovered = await recoverPending({
    store,
    registry,
    hasWorkFile: (id) => ctx.documents.hasInput(id),
    holdsDocument: (e) => ctx.kinds.holdsDocument(e.kind),
    resume: (e) => jobs.resume(e),
    workFiles: { list: () => ctx.documents.listWork(), remove: (id) => ctx.documents.releaseWork(id, { remember: store.get(id) !== undefined }) },
  });
  if (recovered.resumed + recovered.failed > 0) {
    ctx.log.warn(`after restart: ${recovered.resumed} request(s) resumed, ${recovered.failed} set to ERROR`);
  }
  const sweep = setInterval(() => void retain().catch((e) => ctx.log.error(`retention sweep failed: ${String(e)}`)), RETENTION_SWEEP_MS);
  sweep.unref();

  // One cap for every listener: together they hold at most this many connections (connection-cap.ts).
  const cap = new ConnectionCap(ctx.config.maxConnections);
  const [server, twin] = await listenOnLoopback(ctx, createApp(ctx), cap);
  // Memory freed by a burst of work given back once the service is idle (idle-memory.ts).
  const idleCollector = startIdleCollector(() => ctx.tidyWorkers());
  // A stop before the delay skips it: the next start compacts instead.
  let housekeeping: Promise<void> = Promise.resolve();
  const housekeepingTimer = setTimeout(() => {
    housekeeping = store
      .compact()
      .then(async () => void (await retain()))
      .catch((e: unknown) => ctx.log.error(`journal compaction or retention failed: ${String(e)}`));
  }, HOUSEKEEPING_DELAY_MS);
  housekeepingTimer.unref();
  // serve --receive-listen: the platform reaches /receive there while /v1 stays on loopback.
  const receiver = ctx.config.receiveListen ? await listen(ctx, createReceiveApp(ctx), ctx.config.receiveListen.host, ctx.config.receiveListen.port, cap) : null;
  if (remote) {
    ctx.log.warn(
      `listening beyond loopback on ${urlOf(server)} (--allow-remote): other machines can reach the API over plain HTTP; they are served only with a Host named by --allow-host (${ctx.config.allowHosts.join(', ') || 'none given: every remote request is refused'})`,
    );
  }
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    host: address.address,
    port: address.port,
    url: urlOf(server),
    receiveUrl: receiver ? `${urlOf(receiver)}/receive` : null,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        clearInterval(sweep);
        clearTimeout(housekeepingTimer);
        idleCollector.stop();
        await housekeeping;
        registry.releaseWaiters();
        await Promise.all([server, ...(twin ? [twin] : []), ...(receiver ? [receiver] : [])].map((s) => closeWithin(s, graceMs)));
        // Jobs still running get the rest of the grace; what remains PENDING resumes next start.
        await jobs.drain(Math.max(0, graceMs / 2));
        // A clean stop is no crash: what it interrupted keeps its next start's try.
        await jobs.releaseUnfinished();
        await ctx.close();
      })();
      return closing;
    },
  };
}
