import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config/config';
import { tightenModes } from './config/home-safety';
import { assertPrivateHome, ensureHome, type HomePaths } from './config/paths';
import { HttpClient } from './net/http-client';
import { ErrorRecorder } from './diagnostics/error-recorder';
import { createLogger, type Logger } from './log/logger';
import { RotatingFile } from './store/rotating-file';
import { loadTrustAnchors } from './signing/validation';
import { demoCrlOf, embeddedConfigFile, type EmbeddedConfig } from './platform/embedded-config';
import { EmbeddedPlatform } from './platform/embedded';
import { PairingSession, type CatalogueRules, type RemotePlatform } from './platform/remote';
import { RemoteCatalog } from './platform/remote';
import { PlatformResultHub } from './platform/remote';
import { receivePush } from './platform/remote';
import type { CatalogSource } from './platform/catalog-sync';
import { syncCatalog } from './platform/catalog-sync';
import { AuditLog } from './requests/audit-log';
import { DiskQuota } from './requests/disk-quota';
import { RequestRegistry } from './requests/registry';
import { ChipProvider } from './chip/provider';
import { JobRunner } from './signing/job-runner';
import type { JobDeps } from './signing/job-types';
import { BUILT_IN_ENGINES, EngineTable, type EngineDefinition } from './signing/engines';
import { BUILT_IN_KINDS, KindTable, type SignatureKind } from './signing/kinds';
import { runSignTask, type SignTask, type SignTaskResult } from './signing/sign-tasks';
import type { SoftSignTaskResult } from './chip/types';
import { DocumentWork } from './workers/document-work';
import type { ProcessEntry, WorkerEntry } from './workers/entry';
import { threadStarter } from './workers/handles';
import { WorkerPool } from './workers/pool';
import type { CatalogCache, Pairing } from './store/catalog-types';
import { JsonCollection } from './store/json-collection';
import { readFileIfExistsAsync, writeFileAtomicAsync } from './store/atomic-file';
import { DocumentStore } from './store/document-store';
import { RequestStore } from './store/request-store';
import type { AcceptDeps } from './signing/accept';
import { WrapperStore } from './store/wrapper-store';

export interface ContextOptions {
  config: Config;
  readVar?: (name: string) => string | undefined;
  /** How signing worker threads start; null signs inline (tests running from source). */
  workerEntry?: WorkerEntry;
  /** How PDF worker processes start; null runs the PDF work inline, without limits (tests from source). */
  pdfWorkerEntry?: ProcessEntry | null;
  now?: () => Date;
  stderr?: NodeJS.WritableStream;
  /** Whether to open the request journal (the service does; most CLI commands do not). */
  withRequests?: boolean;
  noColor?: boolean;
  /**
   * Kinds and engines beside the built-in ones (signing/kinds/, signing/engines/), registered for
   * this service as those are: their routes, catalogue entries and jobs are served like theirs.
   * For a test that adds one (test/integration/seams/).
   */
  kinds?: readonly SignatureKind[];
  engines?: readonly EngineDefinition[];
}

/**
 * Wires every dependency once (atproto's AppContext.fromConfig). Routes, commands and jobs read
 * only from here; tests build one over a temp home with overrides instead of mocking modules.
 */
export class AppContext {
  readonly paths: HomePaths;
  readonly log: Logger;
  readonly errors: ErrorRecorder;
  readonly wrappers: WrapperStore;
  readonly cache: JsonCollection<CatalogCache>;
  readonly pairing: JsonCollection<{ pairing: Pairing | null }>;
  /** The pairing as the running service sees it: the active one, the remote platform's client. */
  private readonly session: PairingSession;
  readonly embedded: JsonCollection<EmbeddedConfig>;
  readonly pool: WorkerPool<SignTask, SignTaskResult>;
  /** Every read or write of a PDF, in PDF worker processes under per-document limits. */
  readonly documentWork: DocumentWork;
  readonly chips: ChipProvider;
  /** Outbound HTTP with the operator's proxies (TSA; the platform has its own, for its CA). */
  readonly http: HttpClient;
  readonly now: () => Date;
  /** Every document a request has: its input, a prepared state, its signed result. */
  readonly documents: DocumentStore;
  /** Where platform results (push or poll) meet the jobs waiting for them. */
  readonly platformResults = new PlatformResultHub();
  /** What is signed (signing/kinds/): each kind's table, by name. */
  readonly kinds: KindTable;
  /** Who signs (signing/engines/): the chip and the remote platform, each made on first use. */
  readonly engines: EngineTable;
  /** The kinds and engines as the OpenAPI document describes them (GET /openapi.json). */
  readonly described: { kinds: readonly SignatureKind[]; engines: ReturnType<EngineTable['list']> };
  private requestParts: { store: RequestStore; registry: RequestRegistry; audit: AuditLog; jobs: JobRunner; quota: DiskQuota } | null = null;

  constructor(readonly config: Config, private readonly options: ContextOptions) {
    this.kinds = new KindTable([...BUILT_IN_KINDS, ...(options.kinds ?? [])]);
    this.engines = new EngineTable([...BUILT_IN_ENGINES, ...(options.engines ?? [])], {
      getChip: () => this.chips.get(this.embedded.get().chip),
      runTask: (t, o) => this.pool.run(t, o),
      platform: { platform: () => this.currentRemote(), hub: this.platformResults },
    });
    this.described = { kinds: this.kinds.list(), engines: this.engines.list() };
    const homeWarnings = assertPrivateHome(config.home);
    this.paths = ensureHome(config.home);
    this.now = options.now ?? (() => new Date());
    this.log = createLogger({ stderr: options.stderr, file: new RotatingFile(this.paths.serviceLog, config.errorsRotateBytes, config.errorsKeepFiles), now: this.now, noColor: options.noColor });
    for (const warning of [...homeWarnings, ...tightenModes(this.paths)]) this.log.warn(warning);
    this.errors = new ErrorRecorder(this.paths, { bytes: config.errorsRotateBytes, keep: config.errorsKeepFiles }, this.now, (summary, group) =>
      this.log.warn(`${group.count} more failure(s) like "${summary.short}" (${group.type}, status ${group.status ?? '-'}) from ${group.first_ts} to ${group.last_ts} coalesced into ${summary.error_id}`),
      (message) => this.log.warn(message),
    );
    this.wrappers = new WrapperStore(this.paths.wrappers, this.paths.lock);
    this.cache = new JsonCollection<CatalogCache>(this.paths.cache, this.paths.lock, () => ({ credentials: [], designs: [], synced_at: null }));
    this.pairing = new JsonCollection<{ pairing: Pairing | null }>(this.paths.pairing, this.paths.lock, () => ({ pairing: null }));
    this.session = new PairingSession(this.pairing, config.net, (m) => this.log.warn(m), this.catalogueRules());
    this.embedded = embeddedConfigFile(this.paths.embedded, this.paths.lock);
    this.http = new HttpClient(config.net);
    this.documents = new DocumentStore({ work: this.paths.work, results: this.paths.results });
    const signEntry = options.workerEntry ?? null;
    this.pool = new WorkerPool<SignTask, SignTaskResult>({
      name: 'signing worker',
      workers: config.workers,
      start: signEntry && threadStarter(signEntry, 'sign-worker'),
      inline: runSignTask,
      // One thread kept ready by the service (prewarm), the software chip's signatures compiled.
      keep: 1,
      warmTask: () => ({ op: 'warm' }),
      tidyTask: () => ({ op: 'collect' }),
    });
    this.documentWork = DocumentWork.fromConfig(config.documents, options.pdfWorkerEntry ?? null, () => this.paths.work);
    this.chips = new ChipProvider({
      softChipPath: this.paths.softChip,
      runTask: (t, o) => this.pool.run(t, o) as Promise<SoftSignTaskResult>,
      readVar: options.readVar ?? (() => undefined),
      // In embedded.json, which every process re-reads when another one wrote it.
      latch: {
        read: () => this.embedded.get().chip_pin_refused ?? null,
        write: (record) =>
          this.embedded.update((cfg) => {
            if (record) cfg.chip_pin_refused = record;
            else delete cfg.chip_pin_refused;
          }),
      },
      now: () => this.now(),
    });
  }

  /**
   * The service calls this as it starts, before it listens: one PDF worker and one signing thread
   * started and warmed beside it (the PDF engine loaded and run once, the software chip's
   * signatures made once), kept however long they are idle and started again when one ends, so
   * that neither the first signature after start nor one after a day idle pays for any of it. A
   * PKCS#11 chip is left to the first request: opening it may ask a reader for a PIN.
   */
  prewarm(): void {
    this.documentWork.keepWarm();
    this.pool.keepWarm();
  }

  /** The service collected after a burst (service/idle-memory.ts): each idle worker does too. */
  tidyWorkers(): void {
    this.documentWork.tidy();
    this.pool.tidy();
  }

  /** The active pairing, or null when unpaired or revoked by the platform. */
  currentPairing(): Pairing | null {
    return this.session.current();
  }

  /** The 409 for a machine with no active pairing, saying why (platform/remote/session.ts). */
  notPaired(): ReturnType<PairingSession['notPaired']> {
    return this.session.notPaired();
  }

  platform(): CatalogSource | null {
    const p = this.currentPairing();
    if (!p) return null;
    if (p.platform === 'embedded') return new EmbeddedPlatform(this.embedded, (s) => this.chips.get(s));
    // engine "chip" credentials of a remote tenant live on this machine's chip, when one is set up.
    const chip = existsSync(this.paths.embedded) ? { open: () => this.chips.get(this.embedded.get().chip), settings: this.embedded.get().chip } : null;
    return new RemoteCatalog(this.session.remote(p), chip, this.catalogueRules());
  }

  /** What the platform's catalogue is read with: the credential types of these kinds, these engines. */
  private catalogueRules(): CatalogueRules {
    return this.kinds.catalogueRules(this.engines.list());
  }

  /** The remote platform of the current pairing, or null (unpaired, embedded, revoked). */
  currentRemote(): RemotePlatform | null {
    return this.session.currentRemote();
  }

  /**
   * Reloads the catalogue. A chip whose PIN the token refused stays shut (chip/pin-latch.ts): a
   * sync is routine (an application's POST /v1/sync, a scheduled `localsign sync`), not the
   * operator saying the PIN is fixed.
   */
  sync(): Promise<CatalogCache> {
    const source = this.platform();
    if (!source) return Promise.reject(this.notPaired());
    return syncCatalog({ source, write: (c) => this.cache.replace(c), now: this.now(), warn: (m) => this.log.warn(m) });
  }

  /** A push to /receive (PLATFORM.md), handed to the job waiting for it. */
  receivePush(raw: Buffer, headers: { timestamp?: string; signature?: string }): { duplicate: boolean } {
    return receivePush(
      {
        pairing: () => this.currentPairing(),
        request: (id) => this.requests.store.get(id),
        platformAnswer: (entry) => (this.engines.facts(entry.params.engine)?.remote ? this.kinds.get(entry.kind)?.platform?.answer ?? null : null),
        hub: this.platformResults,
        nowSeconds: () => Math.floor(this.now().getTime() / 1000),
      },
      raw,
      headers,
    );
  }

  /** Request journal, registry and job runner: opened by `serve` only (one writer per journal). */
  get requests() {
    if (!this.requestParts) {
      const store = new RequestStore(this.paths.requestsJournal);
      const quota = new DiskQuota(this.config.diskQuotaBytes, (key) => store.resultBytesOf(key));
      // Only a PENDING request can get an audit record, so only its outcomes are remembered (audit-log.ts).
      const audit = new AuditLog(this.paths.audit, { quota, isOpen: (id) => store.get(id)?.status === 'PENDING' });
      let killAfterAudit: (() => void) | null = null;
      // Test build only (config.ts testFaultOf): dropped from the release bundle.
      TEST_FAULT: if (this.config.testFault === 'kill-after-audit') killAfterAudit = () => process.kill(process.pid, 'SIGKILL');
      const registry = new RequestRegistry(store, audit, this.errors, this.log, this.now, killAfterAudit);
      // PAdES jobs in parallel: enough to keep the signing workers busy, few enough that a burst
      // of large documents is not all in memory at once.
      const jobs = new JobRunner(registry, this.jobDeps(), this.config.requestTimeoutMs, Math.max(2, this.config.workers));
      this.requestParts = { store, registry, audit, jobs, quota };
    }
    return this.requestParts;
  }

  private anchors: Uint8Array[] | null = null;

  /** The operator's trust anchors for local validation (`--trust FILE`), read once. */
  trustAnchors(): Uint8Array[] {
    this.anchors ??= loadTrustAnchors(this.config.trustFile);
    return this.anchors;
  }

  /**
   * The demo CA's CRL (`init --embedded` with the software chip), or null: served at its URL and
   * answered in-process when B-LT asks for it, so the demo signs B-LT without a network.
   */
  demoCrl(): { url: string; der: Uint8Array } | null {
    return existsSync(this.paths.embedded) ? demoCrlOf(this.embedded.get()) : null;
  }

  /** What the accept services (signing/accept.ts) need: the sign routes call them with this. */
  accepting(): AcceptDeps {
    return {
      pades: { defaultLevel: this.config.padesLevel, tsaUrl: this.config.tsaUrl },
      quota: this.requests.quota,
      cache: () => this.cache.get(),
      engines: (name) => this.engines.facts(name),
      documents: this.documents,
      documentWork: this.documentWork,
      registry: this.requests.registry,
      jobs: this.requests.jobs,
      log: this.log,
      now: this.now,
      chipPinMayTry: (credential, callerKey) => {
        if (credential.chip_key_id) this.chips.assertChipPinMayTry(this.embedded.get().chip, credential.chip_key_id, callerKey);
      },
    };
  }

  private jobDeps(): JobDeps {
    return {
      now: this.now,
      kinds: (name) => this.kinds.require(name),
      engines: (name) => this.engines.engine(name),
      runTask: (t, o) => this.pool.run(t, o),
      findCredential: (key) => this.cache.get().credentials.find((c) => c.credential_key === key),
      findDesign: (key) => this.cache.get().designs.find((d) => d.design_key === key),
      documents: this.documents,
      documentWork: this.documentWork,
      tsaUrl: this.config.tsaUrl,
      padesLevel: this.config.padesLevel,
      http: this.http,
      localRevocation: (url) => {
        const crl = this.demoCrl();
        return crl && crl.url === url ? crl.der : null;
      },
      testFault: this.config.testFault,
      warn: (m) => this.log.warn(m),
    };
  }

  async close(): Promise<void> {
    this.errors.close();
    if (this.requestParts) {
      await this.requestParts.store.close();
      await this.requestParts.audit.close();
    }
    await this.chips.close();
    await this.http.close();
    await this.session.close();
    await this.pool.close();
    await this.documentWork.close();
  }
}
