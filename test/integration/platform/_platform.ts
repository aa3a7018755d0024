/**
 * Shared steps of the remote-platform tests: a platform double (its own process), a config dir
 * paired with it through the built CLI, and the service started on it.
 */
import { parseJson, runCli, runCliAsync, type CliResult } from '../../helpers/cli';
import type { PlatformDouble } from '../../helpers/platform-double';
import { authed, waitForResult } from '../../helpers/service-process';

export interface Paired {
  agentId: string;
  init: Record<string, unknown>;
}

/** `init --platform URL --code CODE …` through the built CLI, with a fresh code from the double. */
export async function pairWith(double: PlatformDouble, home: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Paired> {
  const code = await double.control.createPairingCode();
  const before = new Set((await double.control.agents()).map((a) => a.agent_id));
  const r = await runCliAsync(['init', '--platform', double.url, '--code', code, '--json', ...extra], { home, env });
  if (r.status !== 0) throw new Error(`init --platform failed (${r.status}): ${r.stderr}`);
  const agent = (await double.control.agents()).find((a) => !before.has(a.agent_id));
  if (!agent) throw new Error('the double recorded no new agent');
  return { agentId: agent.agent_id, init: parseJson(r) };
}

export function wrapperFor(home: string): { key: string; secret: string } {
  return parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home }));
}

export type Call = ReturnType<typeof authed>;

export async function postJson(call: Call, path: string, body: unknown): Promise<Response> {
  return call(path, { method: 'POST', body: JSON.stringify(body) });
}

/** POSTs a sign request and returns its request id (asserting the 202). */
export async function accept(call: Call, path: string, body: unknown): Promise<string> {
  const res = await postJson(call, path, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`${path} answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { request_id: string }).request_id;
}

export async function finalOf(call: Call, requestId: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return waitForResult(call, requestId, timeoutMs);
}

export type { CliResult };
