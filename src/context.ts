import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config/config';
import { assertPrivateHome, ensureHome, type HomePaths } from './config/paths';
import { ErrorRecorder } from './errors/record';
import { createLogger, type Logger } from './log/logger';
import { RotatingFile } from './log/rotating-file';
import { embeddedConfigFile, type EmbeddedConfig } from './platform/embedded-config';
import { EmbeddedPlatform } from './platform/embedded';
import type { CatalogSource } from './platform/catalog-sync';
import { syncCatalog } from './platform/catalog-sync';
import { AuditLog } from './requests/audit-log';
import { RequestRegistry } from './requests/registry';
import { ChipProvider } from './signing/chip-provider';
import { JobRunner } from './signing/job-runner';
import type { JobDeps } from './signing/job-types';
import { SignWorkerPool } from './signing/worker-pool';
import type { WorkerEntry } from './signing/worker-entry';
import type { CatalogCache, Pairing } from './store/catalog-types';
import { JsonCollection } from './store/json-collection';
import { readFileIfExistsAsync, writeFileAtomicAsync } from './store/atomic-file';
import { RequestStore } from './store/request-store';
import { WrapperStore } from './store/wrapper-store';

/** Documents up to this size stay in memory between accept and signing. */
const HOLD_IN_MEMORY_MAX = 16 * 1024 * 1024;

export interface ContextOptions {
  config: Config;
  readVar?: (name: string) => string | undefined;
  /** How signing worker threads start; null signs inline (tests running from source). */
  workerEntry?: WorkerEntry;
  now?: () => Date;
  stderr?: NodeJS.WritableStream;
  /** Whether to open the request journal (the service does; most CLI commands do not). */
  withRequests?: boolean;
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
  readonly embedded: JsonCollection<EmbeddedConfig>;
  readonly pool: SignWorkerPool;
  readonly chips: ChipProvider;
  readonly now: () => Date;
  /**
   * Documents of accepted PAdES requests until their job ends: small ones in memory (no disk read
   * on the hot path), large ones as the promise of their work file, so a queue of big uploads
   * waiting for a PAdES slot is on disk, not in memory.
   */
  private readonly heldDocuments = new Map<string, Buffer | Promise<unknown>>();
  private requestParts: { store: RequestStore; registry: RequestRegistry; audit: AuditLog; jobs: JobRunner } | null = null;

  constructor(readonly config: Config, private readonly options: ContextOptions) {
    assertPrivateHome(config.home);
    this.paths = ensureHome(config.home);
    this.now = options.now ?? (() => new Date());
    this.log = createLogger({ stderr: options.stderr, file: new RotatingFile(this.paths.serviceLog, config.errorsRotateBytes, config.errorsKeepFiles), now: this.now });
    this.errors = new ErrorRecorder(this.paths, { bytes: config.errorsRotateBytes, keep: config.errorsKeepFiles }, this.now);
    this.wrappers = new WrapperStore(this.paths.wrappers, this.paths.lock);
    this.cache = new JsonCollection<CatalogCache>(this.paths.cache, this.paths.lock, () => ({ credentials: [], designs: [], synced_at: null }));
    this.pairing = new JsonCollection<{ pairing: Pairing | null }>(this.paths.pairing, this.paths.lock, () => ({ pairing: null }));
    this.embedded = embeddedConfigFile(this.paths.embedded, this.paths.lock);
    this.pool = new SignWorkerPool({ workers: config.workers, entry: options.workerEntry ?? null });
    this.chips = new ChipProvider({
      softChipPath: this.paths.softChip,
      runTask: (t) => this.pool.run(t),
      readVar: options.readVar ?? (() => undefined),
    });
  }

  /** The active pairing, or null when unpaired or revoked by the platform. */
  currentPairing(): Pairing | null {
    const p = this.pairing.get().pairing;
    return p && !p.revoked ? p : null;
  }

  platform(): CatalogSource | null {
    const p = this.currentPairing();
    if (!p) return null;
    if (p.platform === 'embedded') return new EmbeddedPlatform(this.embedded, (s) => this.chips.get(s));
    return null; // remote platform protocol: the remote-platform issue
  }

  sync(): Promise<CatalogCache> {
    return syncCatalog({ source: this.platform(), write: (c) => this.cache.replace(c), now: this.now() });
  }

  /** Request journal, registry and job runner: opened by `serve` only (one writer per journal). */
  get requests() {
    if (!this.requestParts) {
      const store = new RequestStore(this.paths.requestsJournal, this.paths.results);
      const audit = new AuditLog(this.paths.audit);
      const registry = new RequestRegistry(store, audit, this.errors, this.log, this.now);
      // PAdES jobs in parallel: enough to keep the signing workers busy, few enough that a burst
      // of large documents is not all in memory at once.
      const jobs = new JobRunner(registry, this.jobDeps(), this.config.requestTimeoutMs, Math.max(2, this.config.workers));
      this.requestParts = { store, registry, audit, jobs };
    }
    return this.requestParts;
  }

  workFilePath(requestId: string): string {
    return join(this.paths.work, `${requestId}.pdf`);
  }

  private jobDeps(): JobDeps {
    return {
      now: this.now,
      runTask: (t) => this.pool.run(t),
      getChip: () => this.chips.get(this.embedded.get().chip),
      findCredential: (key) => this.cache.get().credentials.find((c) => c.credential_key === key),
      findDesign: (key) => this.cache.get().designs.find((d) => d.design_key === key),
      readWorkFile: async (id) => {
        const held = this.heldDocuments.get(id);
        if (Buffer.isBuffer(held)) return held;
        if (held) await held.catch(() => undefined);
        return readFileIfExistsAsync(this.workFilePath(id));
      },
      writeResult: (id, bytes) => this.requests.store.writeResult(id, bytes),
      removeWorkFile: (id) => this.removeWorkFile(id),
      tsaUrl: this.config.tsaUrl,
    };
  }

  writeWorkFile(requestId: string, bytes: Uint8Array): Promise<void> {
    return writeFileAtomicAsync(this.workFilePath(requestId), bytes);
  }

  holdDocument(requestId: string, pdf: Uint8Array, written: Promise<unknown>): void {
    this.heldDocuments.set(requestId, pdf.length <= HOLD_IN_MEMORY_MAX ? Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength) : written);
  }

  removeWorkFile(requestId: string): void {
    this.heldDocuments.delete(requestId);
    rmSync(this.workFilePath(requestId), { force: true });
  }

  listWorkFiles(): string[] {
    return readdirSync(this.paths.work)
      .filter((f) => f.endsWith('.pdf'))
      .map((f) => f.slice(0, -4));
  }

  hasWorkFile(requestId: string): boolean {
    return existsSync(this.workFilePath(requestId));
  }

  async close(): Promise<void> {
    if (this.requestParts) {
      await this.requestParts.store.close();
      await this.requestParts.audit.close();
    }
    await this.chips.close();
    await this.pool.close();
  }
}
