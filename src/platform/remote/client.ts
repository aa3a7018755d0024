/**
 * The remote platform, as PLATFORM.md fixes it. Every path of the protocol is in this file, so a
 * real platform with other paths is a change in one place. The service is the client; the
 * platform holds the tenant's catalogue and, for `engine: "platform"` credentials, the keys.
 */
import { LocalsignError, PlatformError } from '../../domain/errors';
import type { HttpAnswer, HttpClient } from '../../net/http-client';
import { TransportError } from '../../net/transport-error';
import type { CachedCredential, CachedDesign } from '../../store/catalog-types';
import type { CatalogSource } from '../catalog-sync';
import { parseCredentials, parseDesigns, parseIncidentAnswer, parsePairAnswer, parseResult, type CatalogueRules, type PairAnswer, type PlatformResult } from './wire';

const PATHS = {
  pair: '/agent/v1/pair',
  credentials: '/agent/v1/credentials',
  designs: '/agent/v1/designs',
  sign: '/agent/v1/sign',
  result: (id: string) => `/agent/v1/results/${encodeURIComponent(id)}`,
  incidents: '/agent/v1/incidents',
} as const;

/** PLATFORM.md "Failures": a sync tries 3 times within about 10 s, then 502. */
const SYNC_TRIES = 3;
const SYNC_TRY_TIMEOUT_MS = 3_000;
const SYNC_BACKOFF_MS = [500, 1_500];
/** One call of a sign submission or a poll; the request timeout bounds the whole. */
const CALL_TIMEOUT_MS = 10_000;

/** A platform 401 on any call: the pairing was revoked (PLATFORM.md "Pairing"). */
export class PairingRevokedError extends LocalsignError {
  constructor() {
    super('not_paired', 'the platform revoked this machine\'s pairing (HTTP 401); pair again with `localsign init --platform URL --code CODE`', { type: 'pairing' });
  }
}

/** Unpaired (never paired, or paired and then revoked): sync and the sign routes answer 409. */
export function notPairedError(revoked: boolean): LocalsignError {
  return revoked ? new PairingRevokedError() : new LocalsignError('not_paired', 'this machine is not paired with a platform; run `localsign init`', { type: 'pairing' });
}

export interface MachineInfo {
  hostname: string;
  os: string;
  arch: string;
  version: string;
}

/**
 * PLATFORM.md: the platform URL is https; plain http only on a loopback address (tests, or a
 * platform reached through a local tunnel), where nothing crosses a network.
 */
export function checkPlatformUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LocalsignError('invalid', `--platform must be a URL such as https://platform.example.com, got "${raw.slice(0, 100)}"`, { type: 'validation' });
  }
  if (url.username || url.password) throw new LocalsignError('invalid', '--platform must not carry a user name or password', { type: 'validation' });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new LocalsignError('invalid', `--platform must be an https:// URL (plain http only on a loopback address), got ${url.protocol}//${url.host}`, { type: 'validation' });
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** Exponential backoff with jitter (half to full delay), so a fleet does not retry in step. */
export function backoffDelay(attempt: number, o: { baseMs: number; capMs: number; random?: () => number }): number {
  const full = Math.min(o.capMs, o.baseMs * 2 ** attempt);
  return Math.round(full * (0.5 + 0.5 * (o.random ?? Math.random)()));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function jsonOf(answer: HttpAnswer, what: string): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new PlatformError(`the platform answered ${what} with HTTP ${answer.status} but not JSON`);
  }
}

/** Pairs with a code from the platform's console (PLATFORM.md "Pairing"). */
export async function pairWithPlatform(http: HttpClient, o: { platformUrl: string; code: string; machine: MachineInfo; callbackUrl: string | null }): Promise<PairAnswer> {
  const answer = await http.request({
    method: 'POST',
    url: o.platformUrl + PATHS.pair,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pairing_code: o.code, machine: o.machine, callback_url: o.callbackUrl }),
    timeoutMs: CALL_TIMEOUT_MS,
  });
  if (answer.status === 401) throw new LocalsignError('invalid', 'the platform refused the pairing code: it is wrong, expired or already used; get a new one from the platform console', { type: 'pairing' });
  if (answer.status !== 200) throw new PlatformError(`the platform answered the pairing with HTTP ${answer.status}`);
  return parsePairAnswer(jsonOf(answer, 'the pairing'));
}

/** PLATFORM.md "Remote signing": the body of a sign call, in its fields' order on the wire. */
export interface SignSubmission {
  request_id: string;
  credential_key: string;
  /** The request kind's wire name, from its table (signing/kinds/). */
  kind: string;
  /** 64 lowercase hex digits, no 0x. */
  digest_hex: string;
  chain_id: number | null;
  digest_algorithm: 'sha256' | 'keccak256';
}

/** A paired platform. `onRevoked` runs when any call answers 401. */
export class RemotePlatform implements CatalogSource {
  constructor(
    private readonly o: {
      url: string;
      agentSecret: string;
      http: HttpClient;
      onRevoked: () => void;
      /** The credential types and engines this service signs with (the kinds' and engines' tables). */
      catalogue: CatalogueRules;
      random?: () => number;
    },
  ) {}

  private async call(method: 'GET' | 'POST', path: string, body: unknown, o: { timeoutMs: number; signal?: AbortSignal; okStatuses?: number[] }): Promise<HttpAnswer> {
    const answer = await this.o.http.request({
      method,
      url: this.o.url + path,
      headers: { authorization: `Bearer ${this.o.agentSecret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: o.timeoutMs,
      signal: o.signal,
    });
    if (answer.status === 401) {
      this.o.onRevoked();
      throw new PairingRevokedError();
    }
    if (answer.status >= 500) throw new TransportError(`the platform answered HTTP ${answer.status}`, { retryable: true });
    if (!(o.okStatuses ?? [200]).includes(answer.status)) throw new PlatformError(`the platform answered ${method} ${path.split('/').slice(0, 4).join('/')} with HTTP ${answer.status}`);
    return answer;
  }

  /** Tries `fn` up to `tries` times on retryable failures, with backoff between tries. */
  private async retry<T>(fn: () => Promise<T>, o: { tries: number; delays?: number[]; signal?: AbortSignal }): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await fn();
      } catch (error) {
        const retryable = error instanceof TransportError && error.retryable && !o.signal?.aborted;
        if (!retryable || attempt + 1 >= o.tries) throw error;
        const delay = o.delays?.[attempt] ?? backoffDelay(attempt, { baseMs: 500, capMs: 30_000, random: this.o.random });
        await sleep(delay, o.signal);
      }
    }
  }

  async fetchCatalog(): Promise<{ credentials: CachedCredential[]; designs: CachedDesign[] }> {
    const get = (path: string) => this.call('GET', path, undefined, { timeoutMs: SYNC_TRY_TIMEOUT_MS });
    const [credentials, designs] = await this.retry(() => Promise.all([get(PATHS.credentials), get(PATHS.designs)]), { tries: SYNC_TRIES, delays: SYNC_BACKOFF_MS });
    return { credentials: parseCredentials(jsonOf(credentials, 'the credential list'), this.o.catalogue), designs: parseDesigns(jsonOf(designs, 'the design list')) };
  }

  /** Hands a digest to the platform; retried until it is accepted or `signal` ends the request. */
  async submitSign(s: SignSubmission, signal: AbortSignal): Promise<void> {
    await this.retry(() => this.call('POST', PATHS.sign, s, { timeoutMs: CALL_TIMEOUT_MS, signal, okStatuses: [200, 202] }), { tries: Infinity, signal });
  }

  /** One poll: the result, or `unknown` when the platform never got this request (404). */
  async pollResult(requestId: string, answerShape: 'signature' | 'recoverable', signal: AbortSignal): Promise<PlatformResult | 'unknown'> {
    const answer = await this.call('GET', PATHS.result(requestId), undefined, { timeoutMs: CALL_TIMEOUT_MS, signal, okStatuses: [200, 404] });
    if (answer.status === 404) return 'unknown';
    return parseResult(jsonOf(answer, 'a result poll'), answerShape);
  }

  /** PLATFORM.md "Incident report": only after the operator confirmed (`report`). */
  async sendIncident(requestId: string | null, errors: unknown[]): Promise<string> {
    const answer = await this.retry(() => this.call('POST', PATHS.incidents, { request_id: requestId, errors }, { timeoutMs: CALL_TIMEOUT_MS }), { tries: SYNC_TRIES, delays: SYNC_BACKOFF_MS });
    return parseIncidentAnswer(jsonOf(answer, 'the incident'));
  }
}
