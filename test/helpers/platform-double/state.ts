/**
 * Everything the double holds and records, in memory (one process per test file; nothing outlives
 * it). Sign requests complete here: by timer (auto approval) or by the control API (manual).
 */
import type { Catalogue } from './catalogue';
import type { DoublePki } from './pki';
import { deliverPush } from './push';
import { signEvmHash, signP256Digest, signRsaDigest } from './signer';
import type {
  AgentRecord, Fault, IncidentRecord, LogEntry, PairCall, PushAttempt, PushMode, Settings, SignRecord, SignResult,
  WireCredential, WireDesign,
} from './types';

type PlatformKey =
  | { kind: 'rsa' | 'p256'; keyPem: string; wrongKeyPem: string }
  | { kind: 'evm'; privateKey: Uint8Array; wrongKey: Uint8Array };

export class DoubleState {
  settings: Settings = { push_enabled: true, push_mode: 'normal', approval: { mode: 'auto', delay_ms: 0 }, wrong_key: false };
  readonly codes = new Set<string>();
  readonly agents = new Map<string, AgentRecord>();
  readonly pairCalls: PairCall[] = [];
  credentials: WireCredential[];
  designs: WireDesign[];
  readonly signs = new Map<string, SignRecord>();
  readonly pushes: PushAttempt[] = [];
  readonly incidents: IncidentRecord[] = [];
  readonly log: LogEntry[] = [];
  faults: { fault: Fault; remaining: number }[] = [];
  /** The keys behind `engine: "platform"` credentials, by credential_key (survive catalogue edits). */
  private readonly keys = new Map<string, PlatformKey>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly tenantId: number, catalogue: Catalogue, pki: DoublePki) {
    this.credentials = catalogue.credentials;
    this.designs = catalogue.designs;
    this.keys.set(catalogue.keys.rsa, { kind: 'rsa', keyPem: pki.rsa.keyPem, wrongKeyPem: pki.rsa.wrongKeyPem });
    this.keys.set(catalogue.keys.p256, { kind: 'p256', keyPem: pki.p256.keyPem, wrongKeyPem: pki.p256.wrongKeyPem });
    this.keys.set(catalogue.keys.wallet, { kind: 'evm', privateKey: pki.wallet.privateKey, wrongKey: pki.wallet.wrongKey });
  }

  agentBySecret(secret: string): AgentRecord | undefined {
    for (const agent of this.agents.values()) if (agent.agent_secret === secret) return agent;
    return undefined;
  }

  /** The first armed fault for `route`, used up by one call. */
  takeFault(route: string): Fault | null {
    const hit = this.faults.find((f) => f.remaining > 0 && (f.fault.path === '*' || f.fault.path === route));
    if (!hit) return null;
    hit.remaining--;
    return hit.fault;
  }

  /** A new sign request starts PENDING; auto approval schedules its completion. */
  accept(record: SignRecord): void {
    this.signs.set(record.request_id, record);
    const approval = this.settings.approval;
    if (approval.mode === 'auto') {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        // The test may have settled it by hand meanwhile (approve/reject work in auto mode too).
        if (record.result.status === 'PENDING') this.complete(record.request_id, null).catch(() => undefined);
      }, approval.delay_ms);
      this.timers.add(timer);
    }
  }

  /** Signs (error null) or fails the request, then pushes if its agent gave a callback_url. */
  async complete(requestId: string, error: string | null): Promise<SignRecord> {
    const record = this.signs.get(requestId);
    if (!record) throw new Error(`unknown request ${requestId}`);
    if (record.result.status !== 'PENDING') throw new Error(`request ${requestId} is already ${record.result.status}`);
    try {
      record.result = error === null ? this.sign(record) : { request_id: requestId, status: 'ERROR', error };
    } catch (e) {
      record.result = { request_id: requestId, status: 'ERROR', error: `the double could not sign: ${(e as Error).message}` };
    }
    const agent = this.agents.get(record.agent_id);
    if (agent?.callback_url && !agent.revoked && this.settings.push_enabled) {
      await this.push(requestId, this.settings.push_mode, agent.callback_url);
    }
    return record;
  }

  /** Delivers a finished result to `url` (default: the agent's callback) and records the attempts. */
  async push(requestId: string, mode: PushMode, url?: string | null): Promise<PushAttempt[]> {
    const record = this.signs.get(requestId);
    if (!record) throw new Error(`unknown request ${requestId}`);
    const agent = this.agents.get(record.agent_id)!;
    const target = url ?? agent.callback_url;
    if (!target) throw new Error(`agent ${agent.agent_id} has no callback_url and none was given`);
    const attempts = await deliverPush({ url: target, secret: agent.agent_secret, result: record.result, mode });
    this.pushes.push(...attempts);
    return attempts;
  }

  private sign(record: SignRecord): SignResult {
    const { request_id, credential_key, digest_hex } = record.body;
    const key = this.keys.get(credential_key);
    if (!key) return { request_id, status: 'ERROR', error: 'credential has no platform key' };
    const wrong = this.settings.wrong_key;
    record.signed_with = wrong ? 'wrong-key' : 'credential';
    const digest = Buffer.from(digest_hex, 'hex');
    if (key.kind === 'evm') return { request_id, status: 'DONE', ...signEvmHash(wrong ? key.wrongKey : key.privateKey, digest) };
    const pem = wrong ? key.wrongKeyPem : key.keyPem;
    const signature = key.kind === 'rsa' ? signRsaDigest(pem, digest) : signP256Digest(pem, digest);
    return { request_id, status: 'DONE', signature_base64: signature.toString('base64') };
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }
}
