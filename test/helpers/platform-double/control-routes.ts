/**
 * The test-only control API under `/__control/` (no bearer): pairing codes, agents, catalogue
 * edits, failure switches, settings, approvals, re-pushes and everything the double received.
 * Catalogue entries are stored as given (only their key is required), so a test can also serve
 * a malformed entry on purpose.
 */
import type { Reply } from './agent-routes';
import { newId } from './pki';
import type { DoubleState } from './state';
import type { DoubleInfo, Fault, PushMode, Settings } from './types';

type Handler = (state: DoubleState, body: Record<string, unknown>, param: string) => Reply | Promise<Reply>;

const ok = (body: unknown): Reply => ({ status: 200, body });
const fail = (status: number, error: string): Reply => ({ status, body: { error } });
const PUSH_MODES: PushMode[] = ['normal', 'duplicate', 'stale', 'forged'];

function agentAction(state: DoubleState, id: string, change: (a: NonNullable<ReturnType<DoubleState['agents']['get']>>) => void): Reply {
  const agent = state.agents.get(id);
  if (!agent) return fail(404, 'unknown agent');
  change(agent);
  return ok(agent);
}

/** Replace (PUT), upsert one (POST) or delete one (DELETE) in a keyed catalogue list. */
function catalogueRoutes(list: 'credentials' | 'designs', key: 'credential_key' | 'design_key'): Record<string, Handler> {
  const base = `/__control/${list}`;
  return {
    [`GET ${base}`]: (s) => ok({ [list]: s[list] }),
    [`PUT ${base}`]: (s, b) => {
      if (!Array.isArray(b[list])) return fail(400, `body must be {${list}: [...]}`);
      (s as unknown as Record<string, unknown>)[list] = b[list];
      return ok({ [list]: s[list] });
    },
    [`POST ${base}`]: (s, b) => {
      if (typeof b[key] !== 'string') return fail(400, `${key} must be a string`);
      const items = s[list] as unknown as Record<string, unknown>[];
      const at = items.findIndex((i) => i[key] === b[key]);
      if (at >= 0) items[at] = b;
      else items.push(b);
      return ok(b);
    },
    [`DELETE ${base}/:`]: (s, _b, param) => {
      const items = s[list] as unknown as Record<string, unknown>[];
      const at = items.findIndex((i) => i[key] === param);
      if (at < 0) return fail(404, `unknown ${key}`);
      items.splice(at, 1);
      return ok({ deleted: param });
    },
  };
}

function settle(approve: boolean): Handler {
  return async (s, b, id) => {
    const record = s.signs.get(id);
    if (!record) return fail(404, 'unknown request_id');
    if (record.result.status !== 'PENDING') return fail(409, `request is already ${record.result.status}`);
    const error = approve ? null : typeof b.error === 'string' ? b.error : 'rejected by the signer';
    return ok(await s.complete(id, error));
  };
}

export function controlHandlers(info: () => DoubleInfo): Record<string, Handler> {
  return {
    'GET /__control/info': () => ok(info()),
    'POST /__control/pairing-codes': (s, b) => {
      const code = typeof b.code === 'string' ? b.code : newId('pc', 8).toUpperCase().replace('PC_', '');
      s.codes.add(code);
      return ok({ code });
    },
    'GET /__control/agents': (s) => ok({ agents: [...s.agents.values()] }),
    'POST /__control/agents/:/revoke': (s, _b, id) => agentAction(s, id, (a) => (a.revoked = true)),
    'PATCH /__control/agents/:': (s, b, id) => {
      if (b.callback_url !== null && typeof b.callback_url !== 'string') return fail(400, 'callback_url must be a string or null');
      return agentAction(s, id, (a) => (a.callback_url = b.callback_url as string | null));
    },
    'GET /__control/pair-calls': (s) => ok({ pair_calls: s.pairCalls }),
    ...catalogueRoutes('credentials', 'credential_key'),
    ...catalogueRoutes('designs', 'design_key'),
    'GET /__control/faults': (s) => ok({ faults: s.faults }),
    'POST /__control/faults': (s, b) => {
      const fault = b as unknown as Fault;
      const action = fault.action;
      if (typeof fault.path !== 'string' || !(typeof action === 'number' || ['drop', 'drop-after', 'hang'].includes(action))) {
        return fail(400, 'body must be {path, action, times?}');
      }
      s.faults.push({ fault, remaining: typeof fault.times === 'number' ? fault.times : Number.POSITIVE_INFINITY });
      return ok({ faults: s.faults.length });
    },
    'DELETE /__control/faults': (s) => {
      s.faults = [];
      return ok({ faults: 0 });
    },
    'GET /__control/settings': (s) => ok(s.settings),
    'PATCH /__control/settings': (s, b) => {
      const next = { ...s.settings, ...b } as Settings;
      if (!PUSH_MODES.includes(next.push_mode)) return fail(400, `push_mode must be one of ${PUSH_MODES.join(', ')}`);
      const a = next.approval as { mode?: string; delay_ms?: unknown };
      if (!(a?.mode === 'manual' || (a?.mode === 'auto' && typeof a.delay_ms === 'number' && a.delay_ms >= 0))) {
        return fail(400, 'approval must be {mode: "auto", delay_ms} or {mode: "manual"}');
      }
      s.settings = next;
      return ok(next);
    },
    'GET /__control/sign-requests': (s) => ok({ sign_requests: [...s.signs.values()] }),
    'POST /__control/sign-requests/:/approve': settle(true),
    'POST /__control/sign-requests/:/reject': settle(false),
    'POST /__control/sign-requests/:/push': async (s, b, id) => {
      const record = s.signs.get(id);
      if (!record) return fail(404, 'unknown request_id');
      if (record.result.status === 'PENDING') return fail(409, 'request is still PENDING');
      const mode = (b.mode as PushMode | undefined) ?? 'normal';
      if (!PUSH_MODES.includes(mode)) return fail(400, 'bad mode');
      try {
        return ok({ attempts: await s.push(id, mode, typeof b.url === 'string' ? b.url : null) });
      } catch (error) {
        return fail(409, (error as Error).message);
      }
    },
    'GET /__control/pushes': (s) => ok({ pushes: s.pushes }),
    'GET /__control/incidents': (s) => ok({ incidents: s.incidents }),
    'GET /__control/log': (s) => ok({ log: s.log }),
  };
}

/** Finds the handler for `METHOD /path`, where `:` in a key stands for one path segment. */
export function matchControl(handlers: Record<string, Handler>, method: string, path: string): { handler: Handler; param: string } | null {
  for (const [key, handler] of Object.entries(handlers)) {
    const [m, pattern] = key.split(' ') as [string, string];
    if (m !== method) continue;
    const re = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(':', '([^/]+)')}$`);
    const hit = re.exec(path);
    if (hit) return { handler, param: hit[1] ? decodeURIComponent(hit[1]) : '' };
  }
  return null;
}
