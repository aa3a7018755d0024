import type {
  Accepted,
  CredentialList,
  DesignList,
  ErrorBody,
  ErrorList,
  ErrorResult,
  EvmResult,
  Health,
  PadesResult,
  Result,
  ResultList,
  SignHashRequest,
  SignPdfRequest,
  SyncAnswer,
  VerifyReport,
} from './api-types.js';
import { AnswerChecks } from './answer-checks.js';
import { fromBase64 } from './base64.js';
import { defaultCryptoBackend, type CryptoBackend } from './crypto-backend.js';
import { jsonWithBase64, parseJsonBytes } from './json-bytes.js';
import { LocalsignApiError, LocalsignApiVersionError, LocalsignConnectionError, LocalsignServiceProofError } from './errors.js';
import { txHashBytes } from './evm-answer.js';
import { CHALLENGE_HEADER, deriveKeys, expectedProof, newNonce, PROOF_HEADER, sameProof, SIGNATURE_HEADER, signatureHeader, type DerivedKeys } from './proof.js';
import { fetchTransport, nodeTransport, type HttpAnswer, type Transport } from './transport.js';

export interface LocalsignClientOptions {
  /** Default `http://127.0.0.1:8300` (the service's default listen address). */
  baseUrl?: string;
  /** The application key, `wrp_…` (`localsign wrapper:create`). Not needed for `health()`. */
  key?: string;
  /**
   * Its secret, `wsec_…`. It never leaves the client: each request is signed with it
   * (X-Wrapper-Signature), and each answer must prove the service holds it (X-Localsign-Proof).
   */
  secret?: string;
  /**
   * Another fetch (a test double, a proxy-aware one). Default: `node:http` where Node is
   * underneath (Node 20.16+, Electron's main process), else the global fetch (transport.ts says why).
   */
  fetch?: typeof fetch;
  /** Longest single HTTP exchange, default 60 s (a long poll adds its own wait to it). */
  timeoutMs?: number;
}

/** A PDF as bytes, or already in base64 (the tolerance rules of the service apply to it). */
export type SignPdfInput = Omit<SignPdfRequest, 'pdf_base64'> & ({ pdf: Uint8Array | ArrayBuffer } | { pdf_base64: string });

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up (LocalsignTimeoutError-like AbortError) after this long; default: wait until DONE or ERROR. */
  timeoutMs?: number;
  /** Seconds one long poll may hold (the service clamps to 30); default 25. */
  pollSeconds?: number;
}

export type FinalResult = PadesResult | EvmResult | ErrorResult;

/** Where a signed PDF's visible signature is: its page (from 1), the page count, its box in points. */
export type StampLocation = NonNullable<PadesResult['stamp']>;

const NEEDS_API_2 = { listResults: 'GET /v1/results', listErrors: 'GET /v1/errors', sync: 'POST /v1/sync' } as const;
/**
 * Above this size `signPdf` sends the PDF itself (`Content-Type: application/pdf`, the fields as
 * query parameters) instead of base64 in JSON: a third less to send, and no base64 text held on
 * either side. The service's extension since 0.2.0 (api_version 2).
 */
const RAW_TRANSPORT_FROM_BYTES = 8 * 1024 * 1024;
const DEFAULT_BASE = 'http://127.0.0.1:8300';

/** The service's one 401 (CONTRACT: the same for a missing, unknown, wrong or revoked credential). */
const UNAUTHORIZED = 'missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)';

/**
 * The localsign HTTP API (docs/integrators.md; the types are generated from its OpenAPI
 * document). No dependencies: Node 20+ and Electron (`node:http`, or fetch where Node is not underneath).
 *
 * It authenticates the service as the service authenticates it (docs/integrators.md
 * "Authenticating the service"): the secret never crosses the socket (each request is signed with
 * it), every answer to a keyed request must carry the service's proof for that request, a document
 * or a PIN goes only to a service that first proved itself on GET /health, and every signing result
 * is checked against its credential before it is returned (answer-checks.ts).
 */
export class LocalsignClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly timeoutMs: number;
  private apiVersion: Promise<Health> | null = null;
  // `#` members: the class's own, out of its prototype (the public surface docs/integrators.md lists).
  readonly #crypto: CryptoBackend = defaultCryptoBackend();
  #keys: Promise<DerivedKeys> | null = null;
  readonly #answers = new AnswerChecks(async (signal) => (await this.listCredentials({ signal })).credentials, this.#crypto);

  constructor(private readonly options: LocalsignClientOptions = {}) {
    this.baseUrl = checkedBaseUrl(options.baseUrl ?? DEFAULT_BASE);
    this.transport = options.fetch ? fetchTransport(options.fetch) : (nodeTransport() ?? fetchTransport(globalThis.fetch.bind(globalThis)));
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /**
   * GET /health: no key needed. With `prove`, the client's key and a fresh challenge go with it,
   * and the answer must prove that the service holds this key (X-Localsign-Proof), else
   * LocalsignServiceProofError.
   */
  health(o: { signal?: AbortSignal; prove?: boolean } = {}): Promise<Health> {
    if (o.prove) return this.#proveService('health', o.signal);
    return this.request<Health>('GET', '/health', { auth: false, signal: o.signal });
  }

  /**
   * The service proves itself before a document or a PIN is sent (GET /health with a challenge):
   * a program that squats on its address while it is down gets nothing worth having.
   */
  async #proveService(operation: string, signal: AbortSignal | undefined): Promise<Health> {
    if (this.options.key === undefined || this.options.secret === undefined) {
      throw new TypeError(`${operation} needs the client's key and secret: the service proves it holds them before anything is sent to it`);
    }
    return this.request<Health>('GET', '/health', { auth: false, challenge: true, signal });
  }

  /**
   * POST /v1/pades/sign: 202 `{request_id, status: "PENDING"}`; then `waitFor`. A large document
   * given as bytes goes as the raw `application/pdf` body (`transport: 'json'` forces base64).
   */
  async signPdf(input: SignPdfInput, o: { signal?: AbortSignal; transport?: 'auto' | 'json' | 'raw' } = {}): Promise<Accepted> {
    const { pdf, ...rest } = input as SignPdfRequest & { pdf?: Uint8Array | ArrayBuffer };
    const bytes = pdf === undefined ? undefined : pdf instanceof Uint8Array ? pdf : new Uint8Array(pdf);
    const raw = bytes !== undefined && (o.transport === 'raw' || (o.transport !== 'json' && bytes.length >= RAW_TRANSPORT_FROM_BYTES));
    await this.#proveService('signPdf', o.signal);
    // What the result must start with (an incremental update): the bytes sent, when known exactly.
    const sent = bytes ?? exactPdfOf(rest.pdf_base64);
    const sentDigest = sent ? { length: sent.length, sha256: await this.#crypto.sha256([sent]) } : null;
    let accepted: Accepted;
    if (raw) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(rest)) {
        if (value === null || value === undefined) continue;
        if (name === 'variables') for (const [v, text] of Object.entries(value as Record<string, string>)) query.append(`var.${v}`, text);
        else query.append(name, String(value));
      }
      accepted = await this.request<Accepted>('POST', `/v1/pades/sign?${query}`, { raw: bytes, signal: o.signal });
    } else {
      const json = bytes !== undefined ? jsonWithBase64(rest, 'pdf_base64', bytes) : JSON.stringify(rest);
      accepted = await this.request<Accepted>('POST', '/v1/pades/sign', { json, signal: o.signal });
    }
    this.#answers.remember(accepted.request_id, { kind: 'pades', credentialKey: rest.credential_key, input: sentDigest });
    return accepted;
  }

  /**
   * POST /v1/pades/verify: checks a signed PDF's signatures on the service's machine (a report,
   * not a signature; the document is not stored): `{valid, signatures: […]}` in file order.
   */
  async verifyPdf(input: { pdf: Uint8Array | ArrayBuffer } | { pdf_base64: string }, o: { signal?: AbortSignal } = {}): Promise<VerifyReport> {
    await this.#proveService('verifyPdf', o.signal);
    const json = 'pdf' in input ? jsonWithBase64({}, 'pdf_base64', input.pdf instanceof Uint8Array ? input.pdf : new Uint8Array(input.pdf)) : JSON.stringify({ pdf_base64: input.pdf_base64 });
    return this.request<VerifyReport>('POST', '/v1/pades/verify', { json, signal: o.signal });
  }

  /**
   * GET /v1/results/{id}/pdf: the signed PDF itself once DONE (404 before), without base64;
   * `wait` (seconds, at most 30) holds a PENDING request first.
   */
  async getResultPdf(requestId: string, o: { wait?: number; signal?: AbortSignal } = {}): Promise<Uint8Array> {
    return (await this.resultPdf(requestId, o)).pdf;
  }

  /** The signed PDF, the result's `warnings` and its `stamp`, which this route carries in headers (the body is the PDF). */
  private async resultPdf(requestId: string, o: { wait?: number; signal?: AbortSignal }): Promise<{ pdf: Uint8Array; warnings: string[]; stamp: StampLocation | null }> {
    const query = o.wait ? `?wait=${Math.max(0, Math.floor(o.wait))}` : '';
    let warnings: string[] = [];
    let stamp: StampLocation | null = null;
    const pdf = await this.request<Uint8Array>('GET', `/v1/results/${encodeURIComponent(requestId)}/pdf${query}`, {
      signal: o.signal,
      binary: true,
      extraMs: (o.wait ?? 0) * 1000,
      onHeaders: (headers) => {
        warnings = parseWarningsHeader(headers.get(WARNINGS_HEADER));
        stamp = stampOf(parseJsonHeader(headers.get(STAMP_HEADER)));
      },
    });
    await this.#answers.checkPdf(requestId, pdf, o.signal);
    return { pdf, warnings, stamp };
  }

  /**
   * Waits for a PAdES request and gives the signed PDF itself (long polls of GET
   * /v1/results/{id}/pdf): a large document comes back once, as bytes, never as the base64 in a
   * result. An ERROR result is returned, as `waitFor` does. A 404 from the PDF route means "not
   * DONE yet" or "no PDF": the result says which (a service without the route gives its base64).
   * `warnings` are the result's (a stamp moved, a stamp line shortened); empty when there are none.
   * `stamp` says where the visible signature is (page, page count, box); null for an invisible one.
   */
  async waitForPdf(requestId: string, o: WaitOptions = {}): Promise<{ request_id: string; status: 'DONE'; pdf: Uint8Array; warnings: string[]; stamp: StampLocation | null } | ErrorResult> {
    return this.longPoll(o, async (wait, signal) => {
      try {
        return { request_id: requestId, status: 'DONE' as const, ...(await this.resultPdf(requestId, { wait, signal })) };
      } catch (e) {
        if (!(e instanceof LocalsignApiError && e.status === 404)) throw e;
        const result = await this.getResult(requestId, { signal });
        if (result.status === 'ERROR') return result as ErrorResult;
        if (result.status === 'PENDING') return null;
        if ('pdf_base64' in result) return { request_id: requestId, status: 'DONE' as const, pdf: fromBase64(result.pdf_base64), warnings: result.warnings ?? [], stamp: stampOf(result.stamp) };
        throw new LocalsignApiError(`${requestId} is not a PDF signature`, 404, e.error_id);
      }
    });
  }

  /**
   * POST /v1/blockchain/sign: 202 `{request_id, status: "PENDING"}`; then `waitFor`. With a
   * `chip_pin`, the service proves itself first.
   */
  async signHash(input: SignHashRequest, o: { signal?: AbortSignal } = {}): Promise<Accepted> {
    if (input.chip_pin !== undefined && input.chip_pin !== null) await this.#proveService('signHash with chip_pin', o.signal);
    const accepted = await this.request<Accepted>('POST', '/v1/blockchain/sign', { body: input, signal: o.signal });
    const hash = typeof input.tx_hash === 'string' ? txHashBytes(input.tx_hash) : null;
    if (hash) this.#answers.remember(accepted.request_id, { kind: 'evm', credentialKey: input.credential_key, hash, chainId: input.chain_id ?? null });
    return accepted;
  }

  /**
   * GET /v1/results/{id}; `wait` (seconds, at most 30) holds a PENDING answer. A DONE result is
   * checked against its credential first (LocalsignAnswerError when it does not match).
   */
  async getResult(requestId: string, o: { wait?: number; signal?: AbortSignal } = {}): Promise<Result> {
    const query = o.wait ? `?wait=${Math.max(0, Math.floor(o.wait))}` : '';
    const result = await this.request<Result>('GET', `/v1/results/${encodeURIComponent(requestId)}${query}`, { signal: o.signal, extraMs: (o.wait ?? 0) * 1000 });
    if (result.status === 'DONE' && 'r' in result) await this.#answers.checkEvm(requestId, result, o.signal);
    else if (result.status === 'DONE' && 'pdf_base64' in result) await this.#answers.checkPdf(requestId, fromBase64(result.pdf_base64), o.signal, result.request_id);
    return result;
  }

  /**
   * Long-polls until the request is DONE or ERROR and returns that result (an ERROR result is
   * returned, not thrown: it is the outcome of the request, and `error_id` names its record).
   * An answer sooner than asked (an older service without `?wait`) and a lost connection are
   * retried with backoff, from 100 ms up to 2 s. `signal` aborts it.
   */
  async waitFor(requestId: string, o: WaitOptions = {}): Promise<FinalResult> {
    return this.longPoll(o, async (wait, signal) => {
      const result = await this.getResult(requestId, { wait, signal });
      return result.status === 'PENDING' ? null : (result as FinalResult);
    });
  }

  /**
   * Repeats `attempt` (one long poll of `wait` seconds; null: still PENDING) until it gives an
   * answer. An answer sooner than asked (an older service without `?wait`) and a lost connection
   * (a service restarting keeps the request) are retried with backoff, from 100 ms up to 2 s;
   * `signal` or `timeoutMs` stop it.
   */
  private async longPoll<T>(o: WaitOptions, attempt: (wait: number, signal: AbortSignal | undefined) => Promise<T | null>): Promise<T> {
    const pollSeconds = Math.min(30, Math.max(1, o.pollSeconds ?? 25));
    const signal = o.timeoutMs !== undefined ? anySignal([o.signal, AbortSignal.timeout(o.timeoutMs)]) : o.signal;
    let backoff = 100;
    for (;;) {
      signal?.throwIfAborted();
      const started = Date.now();
      try {
        const answer = await attempt(pollSeconds, signal);
        if (answer !== null) return answer;
      } catch (e) {
        if (!(e instanceof LocalsignConnectionError) || signal?.aborted) throw e;
      }
      if (Date.now() - started >= pollSeconds * 1000 - 250) {
        backoff = 100; // a full long poll paced it
        continue;
      }
      await sleep(backoff, signal);
      backoff = Math.min(2000, backoff * 2);
    }
  }

  /** GET /v1/results: this key's recent requests, newest first (api_version 2). */
  async listResults(o: { limit?: number; signal?: AbortSignal } = {}): Promise<ResultList> {
    await this.requireApi2('listResults', o.signal);
    return this.request<ResultList>('GET', `/v1/results${o.limit ? `?limit=${o.limit}` : ''}`, { signal: o.signal });
  }

  /** GET /v1/credentials. */
  listCredentials(o: { signal?: AbortSignal } = {}): Promise<CredentialList> {
    return this.request<CredentialList>('GET', '/v1/credentials', { signal: o.signal });
  }

  /** GET /v1/designs. */
  listDesigns(o: { signal?: AbortSignal } = {}): Promise<DesignList> {
    return this.request<DesignList>('GET', '/v1/designs', { signal: o.signal });
  }

  /** POST /v1/sync: reload credentials and designs from the platform (api_version 2). */
  async sync(o: { signal?: AbortSignal } = {}): Promise<SyncAnswer> {
    await this.requireApi2('sync', o.signal);
    return this.request<SyncAnswer>('POST', '/v1/sync', { signal: o.signal });
  }

  /** GET /v1/errors: this key's recorded errors, newest first (api_version 2). */
  async listErrors(o: { limit?: number; requestId?: string; signal?: AbortSignal } = {}): Promise<ErrorList> {
    await this.requireApi2('listErrors', o.signal);
    const q = new URLSearchParams();
    if (o.limit) q.set('limit', String(o.limit));
    if (o.requestId) q.set('request_id', o.requestId);
    const query = q.size > 0 ? `?${q.toString()}` : '';
    return this.request<ErrorList>('GET', `/v1/errors${query}`, { signal: o.signal });
  }

  /** Spec §9: check `api_version` (once per client) before an endpoint that 0.2.0 added. */
  private async requireApi2(op: keyof typeof NEEDS_API_2, signal?: AbortSignal): Promise<void> {
    this.apiVersion ??= this.health({ signal });
    let health: Health;
    try {
      health = await this.apiVersion;
    } catch (e) {
      this.apiVersion = null; // not cached: the next call asks again
      throw e;
    }
    // Services before 0.2.0 have no api_version field: they are api_version 1.
    const found = typeof health.api_version === 'number' ? health.api_version : 1;
    if (found < 2) throw new LocalsignApiVersionError(NEEDS_API_2[op], 2, found, typeof health.version === 'string' ? health.version : null);
  }

  /**
   * One exchange. A keyed one (`auth`, the default) is signed with the secret (X-Wrapper-Signature,
   * never X-Wrapper-Secret) under a fresh nonce; with `challenge`, GET /health is asked to prove
   * the key. Either way the answer must carry the service's proof for that nonce or challenge.
   */
  private async request<T>(
    method: 'GET' | 'POST',
    path: string,
    o: { body?: unknown; json?: string | Uint8Array; raw?: Uint8Array; binary?: boolean; auth?: boolean; challenge?: boolean; signal?: AbortSignal; extraMs?: number; onHeaders?: (headers: HttpAnswer['headers']) => void },
  ): Promise<T> {
    const url = this.baseUrl + path;
    const headers: Record<string, string> = { accept: o.binary ? 'application/pdf, application/json' : 'application/json' };
    const { key, secret } = this.options;
    const keyed = (o.auth !== false || o.challenge === true) && key !== undefined;
    let proven: string | null = null; // the nonce or challenge the answer must prove
    if (keyed) headers['x-wrapper-key'] = key;
    if (keyed && secret !== undefined) {
      proven = newNonce(this.#crypto);
      if (o.challenge) headers[CHALLENGE_HEADER] = proven;
      else {
        const target = new URL(url);
        const time = Math.floor(Date.now() / 1000);
        headers[SIGNATURE_HEADER] = await signatureHeader(await this.#derivedKeys(), { method, target: target.pathname + target.search, time, nonce: proven, key }, this.#crypto);
      }
    }
    const json = o.json ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    if (json !== undefined) headers['content-type'] = 'application/json';
    if (o.raw !== undefined) headers['content-type'] = 'application/pdf';
    const signal = anySignal([o.signal, AbortSignal.timeout(this.timeoutMs + (o.extraMs ?? 0))]);
    let res: HttpAnswer;
    try {
      res = await this.transport(url, { method, headers, body: o.raw ?? json, signal });
    } catch (e) {
      if (o.signal?.aborted) throw o.signal.reason;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (e as Error).message;
      throw new LocalsignConnectionError(`localsign is not reachable at ${this.baseUrl} (${why}): is \`localsign serve\` running?`, { cause: e });
    }
    if (proven !== null) await this.#checkProof(res, proven, `${method} ${path.split('?')[0]}`);
    if (o.binary && res.ok) {
      o.onHeaders?.(res.headers);
      return new Uint8Array(await res.arrayBuffer()) as T;
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    let answer: unknown;
    try {
      answer = parseJsonBytes(bytes);
    } catch {
      answer = null;
    }
    if (!res.ok) {
      const body = (answer ?? {}) as Partial<ErrorBody>;
      const retry = res.headers.get('retry-after');
      throw new LocalsignApiError(typeof body.error === 'string' ? body.error : `HTTP ${res.status} from ${method} ${path.split('?')[0]}`, res.status, typeof body.error_id === 'string' ? body.error_id : null, retry !== null && /^\d+$/.test(retry) ? Number(retry) : null);
    }
    if (answer === null) throw new LocalsignApiError(`${method} ${path.split('?')[0]} answered ${res.status} without a JSON body`, res.status, null);
    return answer as T;
  }

  #derivedKeys(): Promise<DerivedKeys> {
    this.#keys ??= deriveKeys(this.options.secret!, this.#crypto);
    return this.#keys;
  }

  /**
   * The answer proves the service holds this key for `challenge`, or the client believes none of
   * it. A 401 cannot carry a proof (the service proves itself only to a caller it authenticated): it
   * means the credentials were refused, or the peer is not the service; either way the client
   * stops there, with the service's one 401 message in its own words, not the peer's.
   */
  async #checkProof(res: HttpAnswer, challenge: string, what: string): Promise<void> {
    const given = res.headers.get(PROOF_HEADER);
    if (given === null && res.status === 401) {
      let errorId: string | null = null;
      try {
        const body = JSON.parse(await res.text()) as Partial<ErrorBody>;
        if (typeof body.error_id === 'string' && /^err_[A-Za-z0-9_-]{1,64}$/.test(body.error_id)) errorId = body.error_id;
      } catch {
        // no error id to give
      }
      throw new LocalsignApiError(UNAUTHORIZED, 401, errorId);
    }
    const expected = await expectedProof(await this.#derivedKeys(), this.options.key!, challenge, this.#crypto);
    if (sameProof(expected, given)) return;
    throw given === null
      ? new LocalsignServiceProofError(this.baseUrl, res.status, 'missing', `its ${res.status} answer to ${what} carried no X-Localsign-Proof (another program holds that address, or the service is older than this client)`)
      : new LocalsignServiceProofError(this.baseUrl, res.status, 'mismatch', `the X-Localsign-Proof of its ${res.status} answer to ${what} is not this key's (another program holds that address, or the key or secret is wrong or revoked)`);
  }
}

/**
 * `pdf_base64` as the exact bytes the service will sign: canonical base64 of a PDF. Anything the
 * tolerance rules would repair (spec §7) is not known exactly here: null.
 */
function exactPdfOf(pdfBase64: unknown): Uint8Array | null {
  if (typeof pdfBase64 !== 'string' || pdfBase64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(pdfBase64)) return null;
  const bytes = fromBase64(pdfBase64);
  return bytes.length >= 5 && new TextDecoder().decode(bytes.subarray(0, 5)) === '%PDF-' ? bytes : null;
}

/** The header GET /v1/results/{id}/pdf carries the result's `warnings` in (its body is the PDF). */
const WARNINGS_HEADER = 'localsign-warnings';

/** The header GET /v1/results/{id}/pdf carries the result's `stamp` in, as JSON. */
const STAMP_HEADER = 'localsign-stamp';

function parseJsonHeader(value: string | null): unknown {
  if (value === null) return null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

/** The header's JSON array of strings; anything else (an older or odd service) counts as none. */
function parseWarningsHeader(value: string | null): string[] {
  const parsed = parseJsonHeader(value);
  return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : [];
}

/** A result's `stamp` when it has the documented shape; anything else (an older service) is null. */
function stampOf(value: unknown): StampLocation | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const page = v.page === null || (typeof v.page === 'number' && Number.isInteger(v.page) && v.page >= 1) ? (v.page as number | null) : undefined;
  const rect = Array.isArray(v.rect) && v.rect.length === 4 && v.rect.every((n) => typeof n === 'number' && Number.isFinite(n)) ? (v.rect as number[]) : undefined;
  if (page === undefined || !rect || typeof v.page_count !== 'number' || !Number.isInteger(v.page_count) || v.page_count < 1) return null;
  return { page, page_count: v.page_count, rect: [rect[0]!, rect[1]!, rect[2]!, rect[3]!] };
}

/**
 * The base URL as fetch needs it: `http://` or `https://` and a host. Without a scheme fetch
 * fails on every call and the failure reads as "not reachable": said here, at once.
 */
function checkedBaseUrl(value: string): string {
  const trimmed = String(value).trim().replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(trimmed)) {
    throw new TypeError(`base URL must start with http:// or https:// (got "${trimmed.slice(0, 80)}"; for example http://127.0.0.1:8300)`);
  }
  try {
    new URL(trimmed);
  } catch {
    throw new TypeError(`base URL "${trimmed.slice(0, 80)}" is not a valid URL (for example http://127.0.0.1:8300)`);
  }
  return trimmed;
}

/** One signal that aborts when any of them does (AbortSignal.any is Node 20.3+). */
function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length === 1) return present[0]!;
  const any = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (any) return any(present);
  const controller = new AbortController();
  for (const s of present) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

/** As platform/remote.ts's sleep: the client imports nothing from the service (its own package). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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
