import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app';
import { openApiDocument } from '../../../src/api/openapi';
import { buildConfig } from '../../../src/config/config';
import { readEnv } from '../../../src/config/env';
import { AppContext } from '../../../src/context';
import { signPush } from '../../../src/platform/remote/push-hmac';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 7 item 8: every status a route answers is in /openapi.json for that path and method,
 * an error status with the Error schema. The test walks the app's own route table and sends
 * each route the same probes (a foreign Host or Origin, no credentials, an unpaired machine, an
 * empty or invalid or oversized body, bad query values, an unknown id, a platform-signed push),
 * so a route added later is probed too; every status seen must be documented.
 */
const MAX_BODY = 1000;
const AGENT_SECRET = 'agent-secret-for-openapi-test';

interface Setup {
  name: string;
  ctx: AppContext;
  headers: Record<string, string>;
  cleanup(): void;
}

function openContext(name: string, pairing: 'none' | 'remote'): Setup {
  const tmp = makeTmpHome(`localsign-openapi-${name}-`);
  const config = buildConfig(readEnv({}), {}, { home: tmp.home, maxBodyBytes: MAX_BODY, workers: 0 });
  const ctx = new AppContext(config, { config, withRequests: true, stderr: { write: () => true } as unknown as NodeJS.WritableStream });
  if (pairing === 'remote') {
    ctx.pairing.replace({ pairing: { platform: 'remote', tenant_id: 7, paired_at: new Date().toISOString(), platform_url: 'http://127.0.0.1:9', agent_id: 'agt_test', agent_secret: AGENT_SECRET, callback_url: null, platform_ca_pem: null } });
  }
  const { record, secret } = ctx.wrappers.create({ name, credentials: null, now: new Date() });
  return { name, ctx, headers: { 'x-wrapper-key': record.key, 'x-wrapper-secret': secret }, cleanup: tmp.cleanup };
}

type Probe = (path: string, setup: Setup) => { name: string; init: RequestInit & { headers: Record<string, string> }; query?: string };

const HOST = { host: '127.0.0.1' };
const JSON_TYPE = { 'content-type': 'application/json' };
function pushHeaders(body: string): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  return { 'x-platform-timestamp': ts, 'x-platform-signature': signPush(AGENT_SECRET, ts, Buffer.from(body)) };
}

const PROBES: Probe[] = [
  () => ({ name: 'foreign Host', init: { headers: { host: 'evil.example' } } }),
  () => ({ name: 'foreign Origin', init: { headers: { ...HOST, origin: 'http://evil.example' } } }),
  () => ({ name: 'no credentials', init: { headers: { ...HOST } } }),
  (_p, s) => ({ name: 'credentials', init: { headers: { ...HOST, ...s.headers } } }),
  (_p, s) => ({ name: 'empty object', init: { body: '{}', headers: { ...HOST, ...JSON_TYPE, ...s.headers } } }),
  (_p, s) => ({ name: 'invalid JSON', init: { body: '{', headers: { ...HOST, ...JSON_TYPE, ...s.headers } } }),
  (_p, s) => ({ name: 'body over the limit', init: { body: `{"x":"${' '.repeat(MAX_BODY)}"}`, headers: { ...HOST, ...JSON_TYPE, ...s.headers } } }),
  (_p, s) => ({ name: 'bad query values', query: '?limit=0&wait=x', init: { headers: { ...HOST, ...s.headers } } }),
  () => ({ name: 'push body over 1 MiB', init: { body: ' '.repeat(1024 * 1024 + 1), headers: { ...HOST, ...JSON_TYPE } } }),
  () => {
    const body = JSON.stringify({ request_id: 'req_unknown', status: 'DONE' });
    return { name: 'signed push, unknown request', init: { body, headers: { ...HOST, ...JSON_TYPE, ...pushHeaders(body) } } };
  },
  () => ({ name: 'signed push, invalid JSON', init: { body: '{', headers: { ...HOST, ...JSON_TYPE, ...pushHeaders('{') } } }),
];

interface Seen {
  method: string;
  path: string;
  status: number;
  probe: string;
}

describe('/openapi.json documents every status each route answers', () => {
  const setups: Setup[] = [];
  const seen: Seen[] = [];
  let routes: { method: string; path: string }[] = [];

  beforeAll(async () => {
    setups.push(openContext('unpaired', 'none'), openContext('paired', 'remote'));
    // The route table as the app registered it (hono's app.routes); '*' entries are middleware.
    const all = createApp(setups[0]!.ctx).routes.filter((r) => r.method !== 'ALL' && r.path !== '*');
    routes = [...new Map(all.map((r) => [`${r.method} ${r.path}`, { method: r.method, path: r.path }])).values()];
    for (const setup of setups) {
      const app = createApp(setup.ctx);
      for (const route of routes) {
        const path = route.path.replace(/:[a-z_]+/g, 'req_unknown');
        for (const probe of PROBES) {
          const p = probe(path, setup);
          const body = route.method === 'GET' ? undefined : p.init.body;
          const res = await app.request(path + (p.query ?? ''), { ...p.init, body, method: route.method });
          seen.push({ method: route.method, path: route.path, status: res.status, probe: `${setup.name}: ${p.name}` });
        }
      }
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of setups) {
      await s.ctx.close();
      s.cleanup();
    }
  });

  it('every route of the app is an operation of the document', () => {
    expect(routes.length).toBeGreaterThanOrEqual(11);
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const missing = routes.filter((r) => !paths[openApiPath(r.path)]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // And the other way: the document serves nothing the app does not (issue 11).
    const documented = Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort());
  });

  it('the probes provoke every error status the API has', () => {
    expect([...new Set(seen.map((s) => s.status))].sort()).toEqual(expect.arrayContaining([200, 401, 403, 404, 409, 413, 422]));
  });

  it('every status seen is documented, an error status with the Error schema', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>>;
    const undocumented: string[] = [];
    for (const s of seen) {
      const response = paths[openApiPath(s.path)]?.[s.method.toLowerCase()]?.responses?.[String(s.status)];
      const schema = response?.content?.['application/json']?.schema;
      const ok = s.status < 400 ? response !== undefined : schema?.$ref === '#/components/schemas/Error';
      if (!ok) undocumented.push(`${s.method} ${s.path} ${s.status} (${s.probe})`);
    }
    expect([...new Set(undocumented)]).toEqual([]);
  });
});

/** `/v1/results/:request_id` as OpenAPI writes it: `/v1/results/{request_id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}
