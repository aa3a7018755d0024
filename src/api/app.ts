import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { LocalsignError, isLocalsignError } from '../errors/errors';
import { STATUS_OF_KIND } from './http-status';
import { hostCheck } from './middleware/host-check';
import { requirePaired } from './middleware/require-paired';
import { wrapperAuth } from './middleware/wrapper-auth';
import { OPENAPI_DOCUMENT } from './openapi';
import { postBlockchainSign } from './routes/blockchain-sign';
import { listCredentials, listDesigns } from './routes/catalog';
import { listErrors } from './routes/errors';
import { getHealth } from './routes/health';
import { postPadesSign } from './routes/pades-sign';
import { postReceive } from './routes/receive';
import { getResult, listResults } from './routes/results';
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

function route(method: Method, path: string, ...handlers: MiddlewareHandler<ApiEnv>[]): Route {
  const pattern = new RegExp(`^${path.replace(/:[a-z_]+/g, '[^/]+')}$`);
  return { method, path, pattern, handlers };
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
  const h = (fn: (c: Context<ApiEnv>) => Response | Promise<Response>): MiddlewareHandler<ApiEnv> => (c) => Promise.resolve(fn(c));

  const routes: Route[] = [
    route('GET', '/health', h(getHealth(ctx))),
    route('GET', '/openapi.json', h((c) => c.json(OPENAPI_DOCUMENT))),
    route('POST', '/v1/pades/sign', auth, paired, h(postPadesSign(ctx))),
    route('POST', '/v1/blockchain/sign', auth, paired, h(postBlockchainSign(ctx))),
    route('GET', '/v1/results/:request_id', auth, h(getResult(ctx))),
    route('GET', '/v1/results', auth, h(listResults(ctx))),
    route('GET', '/v1/credentials', auth, h(listCredentials(ctx))),
    route('GET', '/v1/designs', auth, h(listDesigns(ctx))),
    route('POST', '/v1/sync', auth, paired, h(postSync(ctx))),
    route('GET', '/v1/errors', auth, h(listErrors(ctx))),
    route('POST', '/receive', h(postReceive(ctx))),
  ];

  app.use('*', hostCheck(ctx.config));
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

/** The single error-to-response mapping: record under an err_ id, one console line, JSON body. */
export function respondError(ctx: AppContext, c: Context, error: unknown): Response {
  const status = isLocalsignError(error) ? STATUS_OF_KIND[error.kind] : 500;
  const requestId = c.req.param('request_id') ?? null;
  const rec = ctx.errors.record(error, {
    status,
    requestId: requestId && requestId.startsWith('req_') ? requestId : null,
    context: { method: c.req.method, path: c.req.path.slice(0, 200) },
  });
  ctx.log.error(`${c.req.method} ${c.req.path.slice(0, 100)} -> ${status}: ${rec.short} (${rec.error_id})`);
  return c.json({ error: rec.short, error_id: rec.error_id }, status);
}
