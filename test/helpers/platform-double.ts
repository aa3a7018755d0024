/**
 * The remote platform as a real server in its own process (program: `platform-double/main.ts`):
 * every path of PLATFORM.md, signing with real keys (RSA-2048 and P-256 PAdES signers under
 * root -> issuing CA -> signer, and a secp256k1 wallet), plus a control API for tests.
 *
 * Switches (all through `double.control`):
 * - failures: `addFault({path, action, times?})` with path one of pair/credentials/designs/sign/
 *   results/incidents or `*`, action an HTTP status (500, 502, 503…), `drop` (socket destroyed
 *   unanswered), `drop-after` (work done, answer lost) or `hang` (never answers); `clearFaults()`;
 * - revoked pairing: `revokeAgent(id)`: the agent's bearer then gets 401 on every path;
 * - approval: `setSettings({approval: {mode: 'auto', delay_ms}})` or `{mode: 'manual'}` then
 *   `approve(id)` / `reject(id, error)`: a slow phone approval without waiting minutes;
 * - push: `setSettings({push_enabled: false})` (the service must poll), `push_mode`
 *   duplicate | stale (timestamp 400 s old) | forged (HMAC under a wrong key); `push(id, {mode, url})`
 *   delivers a finished result again (e.g. to a restarted service on a new port);
 * - `setSettings({wrong_key: true})`: signatures by a key that is not the credential's;
 * - catalogue: `setCredentials`/`upsertCredential`/`deleteCredential`, same for designs (e.g. an
 *   `engine: "chip"` credential with its `chip_key_id`, or a changed stamp);
 * - records: `pairCalls()`, `agents()`, `signRequests()`, `pushes()`, `incidents()`, `log()`.
 * Keys are made per instance (about a second) in a temp dir removed by `stop()`; pass `pkiDir` to
 * keep them and reuse them in a later instance (not two at once on an empty dir).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildProgram } from './child-program';
import { requestJson, type JsonResponse } from './http-json';
import type {
  AgentRecord, DoubleInfo, Fault, IncidentRecord, LogEntry, PairCall, PushAttempt, PushMode, Settings, SignRecord,
  WireCredential, WireDesign,
} from './platform-double/types';
import { tempDir } from './temp-dir';

export type * from './platform-double/types';

const PROGRAM = fileURLToPath(new URL('./platform-double/main.ts', import.meta.url));

export interface PlatformDoubleOptions {
  /** Serve over TLS with a certificate for 127.0.0.1/localhost from a test CA (`caPemPath`). */
  https?: boolean;
  /** Where the keys live; reused if it already holds them. Default: a fresh temp dir. */
  pkiDir?: string;
  tenantId?: number;
  /** Applied before the double is handed over. */
  settings?: Partial<Settings>;
}

export interface PlatformControl {
  createPairingCode(code?: string): Promise<string>;
  agents(): Promise<AgentRecord[]>;
  revokeAgent(agentId: string): Promise<AgentRecord>;
  setCallbackUrl(agentId: string, callbackUrl: string | null): Promise<AgentRecord>;
  pairCalls(): Promise<PairCall[]>;
  credentials(): Promise<WireCredential[]>;
  setCredentials(credentials: WireCredential[]): Promise<void>;
  upsertCredential(credential: WireCredential): Promise<void>;
  deleteCredential(credentialKey: string): Promise<void>;
  designs(): Promise<WireDesign[]>;
  setDesigns(designs: WireDesign[]): Promise<void>;
  upsertDesign(design: WireDesign): Promise<void>;
  deleteDesign(designKey: string): Promise<void>;
  addFault(fault: Fault): Promise<void>;
  clearFaults(): Promise<void>;
  settings(): Promise<Settings>;
  setSettings(change: Partial<Settings>): Promise<Settings>;
  signRequests(): Promise<SignRecord[]>;
  /** Completes a PENDING request (DONE, signed now) and pushes it as a sign would; resolves after the push. */
  approve(requestId: string): Promise<SignRecord>;
  reject(requestId: string, error?: string): Promise<SignRecord>;
  /** Delivers a finished result again; `url` overrides the agent's callback_url. */
  push(requestId: string, o?: { mode?: PushMode; url?: string }): Promise<PushAttempt[]>;
  pushes(): Promise<PushAttempt[]>;
  incidents(): Promise<IncidentRecord[]>;
  log(): Promise<LogEntry[]>;
}

export interface PlatformDouble {
  /** Base URL (`http(s)://127.0.0.1:PORT`, no trailing slash): what `init` takes. */
  url: string;
  /** HTTPS mode: PEM file of the CA behind the TLS certificate (NODE_EXTRA_CA_CERTS, --platform-ca). */
  caPemPath: string | null;
  /** The PAdES root (both signers chain to it): trust it in pdfsig (createNssTrustDb) or openssl. */
  rootPem: string;
  rootPemPath: string;
  rootDerPath: string;
  tenantId: number;
  walletAddress: string;
  /** Credential keys, signer keys and chains of the starting catalogue. */
  keys: DoubleInfo['keys'];
  pkiDir: string;
  /** The double's process id (gone once `stop()` resolves). */
  pid: number;
  control: PlatformControl;
  /** A call to any path of the double (agent paths: pass `bearer`), over its TLS if any. */
  call(method: string, path: string, o?: { bearer?: string; body?: unknown; proxy?: string; timeoutMs?: number }): Promise<JsonResponse>;
  output(): string;
  stop(): Promise<void>;
}

/** Polls `probe` until it returns something truthy (default 10 s), e.g. a push that has arrived. */
export async function waitUntil<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function startPlatformDouble(o: PlatformDoubleOptions = {}): Promise<PlatformDouble> {
  const pkiDir = o.pkiDir ?? tempDir('localsign-platform-double-');
  const args = ['--pki-dir', pkiDir, '--tenant-id', String(o.tenantId ?? 4242), ...(o.https ? ['--https'] : [])];
  const program = await startChildProgram(PROGRAM, args);
  const ca = o.https ? readFileSync(join(pkiDir, 'tls-ca.pem'), 'utf8') : undefined;
  const call: PlatformDouble['call'] = (method, path, c = {}) =>
    requestJson(program.url + path, { method, body: c.body, ca, proxy: c.proxy, timeoutMs: c.timeoutMs, headers: c.bearer ? { authorization: `Bearer ${c.bearer}` } : {} });
  const ctl = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call(method, `/__control/${path}`, { body });
    if (res.status !== 200) throw new Error(`control ${method} ${path} -> ${res.status} ${res.text}`);
    return res.body as T;
  };
  const enc = encodeURIComponent;
  const control: PlatformControl = {
    createPairingCode: async (code) => (await ctl<{ code: string }>('POST', 'pairing-codes', code ? { code } : {})).code,
    agents: async () => (await ctl<{ agents: AgentRecord[] }>('GET', 'agents')).agents,
    revokeAgent: (id) => ctl('POST', `agents/${enc(id)}/revoke`),
    setCallbackUrl: (id, callback_url) => ctl('PATCH', `agents/${enc(id)}`, { callback_url }),
    pairCalls: async () => (await ctl<{ pair_calls: PairCall[] }>('GET', 'pair-calls')).pair_calls,
    credentials: async () => (await ctl<{ credentials: WireCredential[] }>('GET', 'credentials')).credentials,
    setCredentials: async (credentials) => void (await ctl('PUT', 'credentials', { credentials })),
    upsertCredential: async (credential) => void (await ctl('POST', 'credentials', credential)),
    deleteCredential: async (key) => void (await ctl('DELETE', `credentials/${enc(key)}`)),
    designs: async () => (await ctl<{ designs: WireDesign[] }>('GET', 'designs')).designs,
    setDesigns: async (designs) => void (await ctl('PUT', 'designs', { designs })),
    upsertDesign: async (design) => void (await ctl('POST', 'designs', design)),
    deleteDesign: async (key) => void (await ctl('DELETE', `designs/${enc(key)}`)),
    addFault: async (fault) => void (await ctl('POST', 'faults', fault)),
    clearFaults: async () => void (await ctl('DELETE', 'faults')),
    settings: () => ctl('GET', 'settings'),
    setSettings: (change) => ctl('PATCH', 'settings', change),
    signRequests: async () => (await ctl<{ sign_requests: SignRecord[] }>('GET', 'sign-requests')).sign_requests,
    approve: (id) => ctl('POST', `sign-requests/${enc(id)}/approve`),
    reject: (id, error) => ctl('POST', `sign-requests/${enc(id)}/reject`, error ? { error } : {}),
    push: async (id, p = {}) => (await ctl<{ attempts: PushAttempt[] }>('POST', `sign-requests/${enc(id)}/push`, p)).attempts,
    pushes: async () => (await ctl<{ pushes: PushAttempt[] }>('GET', 'pushes')).pushes,
    incidents: async () => (await ctl<{ incidents: IncidentRecord[] }>('GET', 'incidents')).incidents,
    log: async () => (await ctl<{ log: LogEntry[] }>('GET', 'log')).log,
  };
  try {
    if (o.settings) await control.setSettings(o.settings);
    const info = await ctl<DoubleInfo>('GET', 'info');
    return {
      url: program.url,
      caPemPath: info.tls_ca_pem_path,
      rootPem: info.root_pem,
      rootPemPath: info.root_pem_path,
      rootDerPath: info.root_der_path,
      tenantId: info.tenant_id,
      walletAddress: info.keys.wallet.address,
      keys: info.keys,
      pkiDir,
      pid: program.child.pid!,
      control,
      call,
      output: program.output,
      async stop() {
        await program.stop();
        if (!o.pkiDir) rmSync(pkiDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await program.stop();
    if (!o.pkiDir) rmSync(pkiDir, { recursive: true, force: true });
    throw error;
  }
}
