/**
 * The six paths of PLATFORM.md, as pure handlers: (state, call) -> reply. The server decides
 * whether the reply is written, dropped or never sent (failure switches). Bodies are checked
 * strictly (exact keys and types) so a client that strays from PLATFORM.md fails its tests here.
 */
import type { DoubleState } from './state';
import { newId } from './pki';
import type { AgentRecord, AgentRoute, SignBody } from './types';

export interface Reply {
  status: number;
  body: unknown;
}

export interface AgentCall {
  method: string;
  path: string;
  body: unknown;
  /** The agent the bearer names (null: none or unknown); revoked agents included. */
  agent: AgentRecord | null;
}

const ROUTES: { route: AgentRoute; method: string; pattern: RegExp }[] = [
  { route: 'pair', method: 'POST', pattern: /^\/agent\/v1\/pair$/ },
  { route: 'credentials', method: 'GET', pattern: /^\/agent\/v1\/credentials$/ },
  { route: 'designs', method: 'GET', pattern: /^\/agent\/v1\/designs$/ },
  { route: 'sign', method: 'POST', pattern: /^\/agent\/v1\/sign$/ },
  { route: 'results', method: 'GET', pattern: /^\/agent\/v1\/results\/([^/]+)$/ },
  { route: 'incidents', method: 'POST', pattern: /^\/agent\/v1\/incidents$/ },
];

export function matchAgentRoute(method: string, path: string): { route: AgentRoute; param: string | null } | { status: 404 | 405 } {
  const hit = ROUTES.find((r) => r.pattern.test(path));
  if (!hit) return { status: 404 };
  if (hit.method !== method) return { status: 405 };
  return { route: hit.route, param: decodeURIComponent(hit.pattern.exec(path)![1] ?? '') || null };
}

const bad = (error: string): Reply => ({ status: 400, body: { error } });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasExactKeys = (v: Record<string, unknown>, keys: string[]): boolean =>
  Object.keys(v).length === keys.length && keys.every((k) => k in v);

function pair(state: DoubleState, body: unknown): Reply & { agent_id: string | null } {
  const fail = (r: Reply): Reply & { agent_id: null } => ({ ...r, agent_id: null });
  if (!isObject(body) || !hasExactKeys(body, ['pairing_code', 'machine', 'callback_url'])) {
    return fail(bad('body must be {pairing_code, machine, callback_url}'));
  }
  const { pairing_code, machine, callback_url } = body;
  if (typeof pairing_code !== 'string') return fail(bad('pairing_code must be a string'));
  if (!isObject(machine) || !hasExactKeys(machine, ['hostname', 'os', 'arch', 'version']) ||
    !Object.values(machine).every((v) => typeof v === 'string')) {
    return fail(bad('machine must be {hostname, os, arch, version} strings'));
  }
  if (callback_url !== null && (typeof callback_url !== 'string' || !/^https?:\/\//.test(callback_url))) {
    return fail(bad('callback_url must be an http(s) URL or null'));
  }
  if (!state.codes.delete(pairing_code)) return fail({ status: 401, body: { error: 'invalid or used pairing code' } });
  const agent: AgentRecord = {
    agent_id: newId('agt'), agent_secret: newId('asec', 32), tenant_id: state.tenantId, callback_url,
    machine: machine as AgentRecord['machine'], paired_at: new Date().toISOString(), revoked: false,
  };
  state.agents.set(agent.agent_id, agent);
  return { status: 200, body: { tenant_id: agent.tenant_id, agent_id: agent.agent_id, agent_secret: agent.agent_secret }, agent_id: agent.agent_id };
}

function checkSign(state: DoubleState, body: unknown): Reply | SignBody {
  const keys = ['request_id', 'credential_key', 'kind', 'digest_hex', 'digest_algorithm', 'chain_id'];
  if (!isObject(body) || !hasExactKeys(body, keys)) return bad(`body must have exactly ${keys.join(', ')}`);
  const b = body as unknown as SignBody;
  if (typeof b.request_id !== 'string' || b.request_id === '') return bad('request_id must be a non-empty string');
  if (typeof b.digest_hex !== 'string' || !/^[0-9a-f]{64}$/.test(b.digest_hex)) return bad('digest_hex must be 64 lowercase hex digits');
  const credential = state.credentials.find((c) => c.credential_key === b.credential_key);
  if (!credential) return { status: 404, body: { error: 'unknown credential_key' } };
  if (credential.engine !== 'platform') return bad('credential is not signed by the platform (engine is not "platform")');
  if (b.kind === 'pades') {
    if (credential.type !== 'pades') return bad('kind pades needs a pades credential');
    if (b.digest_algorithm !== 'sha256') return bad('pades digests are sha256');
    if (b.chain_id !== null) return bad('chain_id must be null for pades');
  } else if (b.kind === 'blockchain') {
    if (credential.type !== 'evm') return bad('kind blockchain needs an evm credential');
    if (b.digest_algorithm !== 'keccak256') return bad('blockchain digests are keccak256');
    if (b.chain_id !== null && !(Number.isSafeInteger(b.chain_id) && b.chain_id > 0)) return bad('chain_id must be a positive integer or null');
  } else {
    return bad('kind must be "pades" or "blockchain"');
  }
  return b;
}

function sign(state: DoubleState, agent: AgentRecord, body: unknown): Reply {
  const checked = checkSign(state, body);
  if ('status' in checked) return checked;
  const existing = state.signs.get(checked.request_id);
  if (existing) {
    // A retry after a lost answer must not sign twice; the same id with other fields is a client bug.
    existing.times_received++;
    if (JSON.stringify(existing.body) !== JSON.stringify(checked)) return { status: 409, body: { error: 'request_id reused with other fields' } };
    return { status: 202, body: { accepted: true } };
  }
  state.accept({
    request_id: checked.request_id, agent_id: agent.agent_id, body: checked, received_at: new Date().toISOString(),
    times_received: 1, result: { request_id: checked.request_id, status: 'PENDING' }, signed_with: null,
  });
  return { status: 202, body: { accepted: true } };
}

function incident(state: DoubleState, agent: AgentRecord, body: unknown): Reply {
  if (!isObject(body) || !hasExactKeys(body, ['request_id', 'errors']) || typeof body.request_id !== 'string' || !Array.isArray(body.errors)) {
    return bad('body must be {request_id, errors:[...]}');
  }
  const incident_id = newId('inc');
  state.incidents.push({ incident_id, agent_id: agent.agent_id, body: body as { request_id: string; errors: unknown[] }, at: new Date().toISOString() });
  return { status: 200, body: { incident_id } };
}

export function handleAgentCall(state: DoubleState, route: AgentRoute, param: string | null, call: AgentCall): Reply {
  if (route === 'pair') {
    const { agent_id, ...reply } = pair(state, call.body);
    state.pairCalls.push({ at: new Date().toISOString(), body: call.body, status: reply.status, agent_id });
    return reply;
  }
  if (!call.agent) return { status: 401, body: { error: 'missing or unknown bearer' } };
  if (call.agent.revoked) return { status: 401, body: { error: 'pairing revoked' } };
  switch (route) {
    case 'credentials':
      return { status: 200, body: { credentials: state.credentials } };
    case 'designs':
      return { status: 200, body: { designs: state.designs } };
    case 'sign':
      return sign(state, call.agent, call.body);
    case 'results': {
      const record = param ? state.signs.get(param) : undefined;
      return record ? { status: 200, body: record.result } : { status: 404, body: { error: 'unknown request_id' } };
    }
    case 'incidents':
      return incident(state, call.agent, call.body);
  }
}
