import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { BusyError, LocalsignError, RateLimitedError, isLocalsignError } from '../domain/errors';
import { STATUS_OF_KIND } from './http-status';
import { BodyMemory, bodyMemory } from './middleware/body-memory';
import { hostCheck } from './middleware/host-check';
import { CLIENT_ABORTED } from './middleware/read-body';
import { rateLimit, RateLimiter } from './middleware/rate-limit';
import { requirePaired } from './middleware/require-paired';
import { wrapperAuth } from './middleware/wrapper-auth';
import { openApiDocument } from './openapi';
import { operationsOf, type OperationId } from './operations';
import { listCredentials, listDesigns } from './routes/catalog';
import { listErrors } from './routes/errors';
import { getHealth } from './routes/health';
import { postKindSign } from './routes/kind-sign';
import { postPadesSign } from './routes/pades-sign';
import { getDemoCrl } from './routes/pki';
import { postPadesVerify } from './routes/pades-verify';
import { postReceive } from './routes/receive';
import { getResult, getResultPdf, listResults } from './routes/results';
import { postSync } from './routes/sync';
import type { ApiEnv } from './types';

type Method = 'GET' | 'POST';
interface Route {
  method: Method;
  path: string;
  /** Matches the path alone, to tell 405 from 404 (hono's method-not-allowed idea). */
  pattern: RegExp;
  handlers: MiddlewareHandler<ApiEnv>[];
}

/**
 * The path as a regular expression: every literal character matches only itself (a `.` in
 * `/openapi.json` is not "any character"), and a `:param` segment matches one segment.
 */
export function routePattern(path: string): RegExp {
  const source = path
    .split(/(:[a-z_]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function route(method: Method, path: string, ...handlers: MiddlewareHandler<ApiEnv>[]): Route {
  return { method, path, pattern: routePattern(path), handlers };
}

/**
 * The HTTP API. Order of checks (CONTRACT): Host/Origin (403, every path) -> route (404/405) ->
 * authentication (401) -> pairing (409, sign routes and sync) -> validation (422). Auth is
 * attached per route, never with app.use('/v1/*'), so unknown paths answer 404 before 401.
 */
export function createApp(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const auth = wrapperAuth(ctx.wrappers);
  const paired = requirePaired(ctx);
  // Abuse: per application key, on the routes that start work: both sign routes, verify and
  // sync (operations.ts `rateLimited`). Polls and lists stay free.
  const limited = rateLimit(ctx.config.rateLimit ? new RateLimiter(ctx.config.rateLimit) : null);
  const h = (fn: (c: Context<ApiEnv>) => Response | Promise<Response>): MiddlewareHandler<ApiEnv> => (c) => Promise.resolve(fn(c));

  // One handler per operation of the route table (operations.ts); the table decides the checks. A
  // kind's sign route has the generic one (routes/kind-sign.ts).
  type Handler = (c: Context<ApiEnv>) => Response | Promise<Response>;
  const handlers: Record<OperationId, Handler> = {
    health: getHealth(ctx),
    openapi: (c) => c.json(openApiDocument(ctx.described)),
    signPdf: postPadesSign(ctx),
    getResult: getResult(ctx),
    getResultPdf: getResultPdf(ctx),
    listResults: listResults(ctx),
    listCredentials: listCredentials(ctx),
    listDesigns: listDesigns(ctx),
    sync: postSync(ctx),
    listErrors: listErrors(ctx),
    receive: postReceive(ctx),
    demoCrl: getDemoCrl(ctx),
    verifyPdf: postPadesVerify(ctx),
  };
  const kindHandlers = new Map<string, Handler>(ctx.kinds.list().flatMap((k) => (k.route ? [[k.route.id, postKindSign(ctx, k)] as const] : [])));
  const routes: Route[] = operationsOf(ctx.kinds.list()).map((op) =>
    route(op.method, op.path, ...(op.auth ? [auth] : []), ...(op.rateLimited ? [limited] : []), ...(op.paired ? [paired] : []), h(kindHandlers.get(op.id) ?? handlers[op.id as OperationId])),
  );

  const bodyTimeoutMs = ctx.config.bodyTimeoutMs;
  app.use('*', hostCheck(ctx.config), bodyMemory(new BodyMemory(ctx.config.maxBodyMemoryBytes)), async (c, next) => {
    c.set('bodyTimeoutMs', bodyTimeoutMs);
    await next();
  });
  for (const r of routes) app.on(r.method, [r.path], ...(r.handlers as [MiddlewareHandler<ApiEnv>]));

  app.notFound((c) => {
    const path = c.req.path;
    const allowed = routes.filter((r) => r.pattern.test(path)).map((r) => r.method);
    if (allowed.length > 0) {
      c.header('Allow', [...new Set(allowed)].join(', '));
      return respondError(ctx, c, new LocalsignError('method_not_allowed', `${c.req.method} is not allowed on ${path}; use ${allowed.join(' or ')}`, { type: 'routing' }));
    }
    return respondError(ctx, c, new LocalsignError('not_found', `no route ${c.req.method} ${path.slice(0, 100)}`, { type: 'routing' }));
  });
  app.onError((error, c) => respondError(ctx, c, error));
  return app;
}

/**
 * The app of `serve --receive-listen`: POST /receive and nothing else (every other path 404, every
 * other method 405), so the platform can reach its push route while /v1 stays on loopback. No Host
 * check: the platform names this listener by whatever public name it uses, and the route is
 * authenticated by the HMAC of the agent secret, which a rebinding web page cannot produce.
 */
export function createReceiveApp(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use('*', bodyMemory(new BodyMemory(ctx.config.maxBodyMemoryBytes)), async (c, next) => {
    c.set('bodyTimeoutMs', ctx.config.bodyTimeoutMs);
    await next();
  });
  app.post('/receive', postReceive(ctx));
  app.notFound((c) =>
    c.req.path === '/receive'
      ? (c.header('Allow', 'POST'), respondError(ctx, c, new LocalsignError('method_not_allowed', `${c.req.method} is not allowed on /receive; use POST`, { type: 'routing' })))
      : respondError(ctx, c, new LocalsignError('not_found', `no route ${c.req.method} ${c.req.path.slice(0, 100)} on the receive listener (it serves only POST /receive)`, { type: 'routing' })),
  );
  app.onError((error, c) => respondError(ctx, c, error));
  return app;
}

/**
 * An answer written straight to the socket, for what never reaches the app: Node's HTTP parser
 * refused the message (server 'clientError': malformed, header section too large, headers or
 * body too slow). Same body and record as every other failure (CONTRACT: every failure body is
 * {error, error_id} with its record in errors.jsonl); no application is known, so the record is
 * in errors.jsonl only. `Connection: close`: the parser's state after such an error is lost.
 */
export function rawErrorAnswer(ctx: AppContext, error: LocalsignError, context: Record<string, unknown>): string {
  const status = STATUS_OF_KIND[error.kind];
  const rec = ctx.errors.record(error, { status, requestId: null, wrapperKey: null, context });
  if (!rec.coalesced) ctx.log.error(`${String(context.code ?? 'request')} -> ${status}: ${rec.short} (${rec.error_id})`);
  const body = JSON.stringify({ error: rec.short, error_id: rec.error_id });
  return [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/** The single error-to-response mapping: record under an err_ id, one console line, JSON body. */
export function respondError(ctx: AppContext, c: Context, error: unknown): Response {
  if (isLocalsignError(error) && error.type === CLIENT_ABORTED) {
    // Nobody is there to read an answer, and nothing failed on our side: one info line, no error
    // record (an aborted upload is not a 500 internal error in errors.jsonl).
    ctx.log.info(`${c.req.method} ${c.req.path.slice(0, 100)}: ${error.message}`);
    return c.body(null, 400);
  }
  const status = isLocalsignError(error) ? STATUS_OF_KIND[error.kind] : 500;
  // CONTRACT GET /v1/errors: a record belongs to the authenticated application, if any, and
  // carries a request id from the URL only when that request is this application's: a stranger
  // (or another application) must not attach records to someone else's request.
  const wrapper = (c as Context<ApiEnv>).get('wrapper') as ApiEnv['Variables']['wrapper'] | undefined;
  const urlId = c.req.param('request_id');
  const owned = wrapper && urlId && ctx.requests.store.get(urlId)?.wrapperKey === wrapper.key ? urlId : null;
  const rec = ctx.errors.record(error, {
    status,
    requestId: owned,
    wrapperKey: wrapper?.key ?? null,
    context: { method: c.req.method, path: c.req.path.slice(0, 200) },
  });
  // A flood is one summary line when its group closes, not a line per failure (error-coalescer.ts).
  if (!rec.coalesced) ctx.log.error(`${c.req.method} ${c.req.path.slice(0, 100)} -> ${status}: ${rec.short} (${rec.error_id})`);
  if (error instanceof RateLimitedError || error instanceof BusyError) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json({ error: rec.short, error_id: rec.error_id }, status);
}
