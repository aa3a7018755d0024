import { availableParallelism } from 'node:os';
import { PADES_LEVELS, type PadesLevel } from '../domain/pades';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '../domain/errors';
import type { EnvSnapshot, RawSettings } from './env';
import { readServiceFile, type ServiceFile } from './service-file';

/** Defaults fixed by CONTRACT.md (listen, body limit, retention, request timeout). */
export const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8300,
  maxBodyBytes: 256 * 1024 * 1024,
  /**
   * Request bodies held in memory at once, all callers together (a JSON body counts twice: its
   * base64 and the document). Two maximal JSON uploads' worth, under the 2 GiB the systemd unit
   * allows with the PDF workers' share beside it; a lone body may always be as large as maxBody.
   */
  maxBodyMemoryBytes: 512 * 1024 * 1024,
  /**
   * Connections held at once per listener, well under the usual 1,024 file descriptors so the
   * service keeps some for its files and workers; beyond it the longest-idle connection is closed
   * (service/connection-cap.ts).
   */
  maxConnections: 512,
  /**
   * Disk one application may fill with its results and its last 24 hours of audit records
   * (requests/disk-quota.ts): far beyond any person's signing, short of one flood filling a disk.
   */
  diskQuotaBytes: 2 * 1024 * 1024 * 1024,
  requestTimeoutMs: 10 * 60 * 1000,
  retentionMs: 7 * 24 * 3600 * 1000,
  retentionMaxResults: 10_000,
  errorsRotateBytes: 10 * 1024 * 1024,
  errorsKeepFiles: 5,
  /** Off: a local service's callers are the operator's own programs (serve --rate-limit). */
  rateLimitPerSecond: 0,
  /**
   * One step on one document (check, prepare, finish, validate) in a PDF worker: a
   * hostile document is answered within 10 s, while a legitimate 100 MB one takes about 1 s
   * (`npm run bench large`).
   */
  documentTimeLimitMs: 8_000,
  /**
   * Heap of a PDF worker. The engine reads objects on demand and keeps large byte data outside
   * the heap, so a 100 MB document needs a few tens of MB of it; a document that needs more is
   * refused before the service's memory grows by the 768 MiB a probe must stay under.
   */
  documentMemoryLimitMb: 384,
  /** Slowloris (CVE-2007-6750 class): the whole header section within 10 s. */
  headerTimeoutMs: 10_000,
  /** A body that stops arriving for 30 s is given up (408); the long poll (30 s) is not a body. */
  bodyTimeoutMs: 30_000,
});

/**
 * Faults a test can provoke in a real service process, for what cannot be caused from outside
 * (a job that takes the process down, as a V8 abort does). For tests only:
 * `kill-in-job` kills the process where a job would sign, `kill-after-audit` between a DONE's
 * audit record and the DONE itself (to prove audit exactly once); never set them on a real service.
 */
export const TEST_FAULTS = ['kill-in-job', 'kill-after-audit'] as const;
export type TestFault = (typeof TEST_FAULTS)[number];

export interface Config {
  readonly home: string;
  /** The installed service's settings file the home came from (service-file.ts), or null. */
  readonly serviceFile: string | null;
  readonly host: string;
  readonly port: number;
  readonly maxBodyBytes: number;
  /** serve --max-body-memory: request bodies held in memory at once (api/middleware/body-memory.ts). */
  readonly maxBodyMemoryBytes: number;
  /** serve --max-connections: connections held at once per listener (service/connection-cap.ts). */
  readonly maxConnections: number;
  /** serve --disk-quota MIB: per application (requests/disk-quota.ts); 0 none. */
  readonly diskQuotaBytes: number;
  readonly requestTimeoutMs: number;
  readonly tsaUrl: string | null;
  /** The PAdES level of a request that does not ask for one: B-T with a TSA, else B-B. */
  readonly padesLevel: PadesLevel;
  /** PEM trust anchors for local validation (`--trust FILE`); null: none configured. */
  readonly trustFile: string | null;
  /** serve --receive-listen HOST:PORT: a second listener serving only POST /receive. */
  readonly receiveListen: { readonly host: string; readonly port: number } | null;
  /** Host names served besides loopback (CONTRACT: DNS-rebinding defence), lowercase. */
  readonly allowHosts: readonly string[];
  /** Origins accepted on requests that carry an Origin header. */
  readonly allowOrigins: readonly string[];
  readonly retentionMs: number;
  readonly retentionMaxResults: number;
  readonly errorsRotateBytes: number;
  readonly errorsKeepFiles: number;
  /** Worker threads for CPU-bound signing; 0 runs signing inline (tests from source). */
  readonly workers: number;
  /** The PDF workers (workers/document-work.ts): how many, and the limits of each step. */
  readonly documents: { readonly workers: number; readonly timeLimitMs: number; readonly memoryLimitMb: number };
  /** Outbound proxies (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) for the platform and the TSA. */
  readonly net: { readonly httpProxy: string | null; readonly httpsProxy: string | null; readonly noProxy: string | null };
  /** Tests only (env LOCALSIGN_TEST_FAULT); null in every real run. */
  readonly testFault: TestFault | null;
  /** serve --allow-remote: `host` may be beyond loopback (the service warns when it is). */
  readonly allowRemote: boolean;
  /** Per application key: a token bucket of `perSecond` with room for `burst`; null is off. */
  readonly rateLimit: { readonly perSecond: number; readonly burst: number } | null;
  /** Longest wait for a request's header section (Node's server.headersTimeout). */
  readonly headerTimeoutMs: number;
  /** Longest silence while a request body is being read. */
  readonly bodyTimeoutMs: number;
}


/** --pades-level: one of the four; B-T and above need the timestamp authority their timestamps come from. */
function parsePadesLevel(value: string | undefined, tsaUrl: string | null): PadesLevel {
  if (value === undefined) return tsaUrl ? 'B-T' : 'B-B';
  const level = PADES_LEVELS.find((l) => l === value.toUpperCase());
  if (!level) throw new ConfigurationError(`--pades-level must be one of ${PADES_LEVELS.join(', ')}, got "${value.slice(0, 20)}"`);
  if (level !== 'B-B' && !tsaUrl) throw new ConfigurationError(`--pades-level ${level} needs a timestamp authority (--tsa-url or LOCALSIGN_TSA_URL)`);
  return level;
}

/**
 * The test switch exists only in the test build: `TEST_FAULT:` blocks are dropped from the release
 * bundle (build/bundle.mjs, esbuild `dropLabels`), so a release binary never SIGKILLs
 * itself whatever its environment says.
 */
function testFaultOf(value: string | undefined): TestFault | null {
  TEST_FAULT: return parseTestFault(value);
  return null;
}

function parseTestFault(value: string | undefined): TestFault | null {
  if (value === undefined) return null;
  if (!(TEST_FAULTS as readonly string[]).includes(value)) {
    throw new ConfigurationError(`LOCALSIGN_TEST_FAULT must be one of ${TEST_FAULTS.join(', ')} (tests only), got "${value.slice(0, 20)}"`);
  }
  return value as TestFault;
}

function parseInteger(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigurationError(`${name} must be an integer from ${min} to ${max}, got "${value.slice(0, 20)}"`);
  }
  return Number(value);
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces' loopback default stays explicit). */
function parseListen(name: string, value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : -1;
  if (!m || port > 65535) throw new ConfigurationError(`${name} must be HOST:PORT (for example 0.0.0.0:8301), got "${value.slice(0, 60)}"`);
  return { host: (m[1] || '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

/**
 * Signing threads: one per core but the event loop's, at least 2 (on 2 cores, 2 workers gave
 * 1,317-1,407 EVM signatures/s against 1,185-1,209 with 1: `BENCH_WORKERS=1|2 node test/bench/run.mjs evm`), at most 8.
 */
function defaultWorkers(): number {
  return Math.min(8, Math.max(2, availableParallelism() - 1));
}

/**
 * PDF workers: two, so one hostile verification never holds the only worker a signature needs
 * (document-work.ts lets validations use all but one), up to four on larger machines.
 */
function defaultDocumentWorkers(): number {
  return Math.min(4, Math.max(2, availableParallelism() - 1));
}

/** Flags win over environment variables, which win over defaults (CONTRACT "listen"). */
export function buildConfig(env: EnvSnapshot, flags: RawSettings = {}, overrides: Partial<Config> = {}): Config {
  const s = { ...env.settings, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) } as RawSettings;
  // No home given: the installed system service's, if there is one (one dir for both).
  const service: ServiceFile | null = s.home === undefined && env.serviceFile ? readServiceFile(env.serviceFile) : null;
  const timeoutSeconds = parseInteger('request timeout (seconds)', s.requestTimeout, 1, 7 * 24 * 3600);
  const config: Config = {
    // Absolute, so messages and `status` name the real place whatever the working directory.
    home: resolve(s.home ?? service?.home ?? join(env.userHome, '.localsign')),
    serviceFile: service ? env.serviceFile! : null,
    host: s.host ?? service?.host ?? DEFAULTS.host,
    port: parseInteger('port', s.port, 0, 65535) ?? service?.port ?? DEFAULTS.port,
    maxBodyBytes: parseInteger('max body (bytes)', s.maxBody, 1, Number.MAX_SAFE_INTEGER) ?? DEFAULTS.maxBodyBytes,
    maxBodyMemoryBytes: parseInteger('max body memory (bytes)', s.maxBodyMemory, 1024 * 1024, Number.MAX_SAFE_INTEGER) ?? DEFAULTS.maxBodyMemoryBytes,
    maxConnections: parseInteger('max connections', s.maxConnections, 8, 1_000_000) ?? DEFAULTS.maxConnections,
    diskQuotaBytes: (() => {
      const mib = parseInteger('disk quota (MiB)', s.diskQuota, 0, 1024 * 1024 * 1024);
      return mib === undefined ? DEFAULTS.diskQuotaBytes : mib * 1024 * 1024;
    })(),
    requestTimeoutMs: timeoutSeconds === undefined ? DEFAULTS.requestTimeoutMs : timeoutSeconds * 1000,
    tsaUrl: s.tsaUrl ?? null,
    padesLevel: parsePadesLevel(s.padesLevel, s.tsaUrl ?? null),
    trustFile: s.trustFile ? resolve(s.trustFile) : null,
    receiveListen: s.receiveListen === undefined ? null : parseListen('receive listen address', s.receiveListen),
    allowHosts: (s.allowHost ?? []).map((h) => h.toLowerCase()),
    allowOrigins: s.allowOrigin ?? [],
    // CONTRACT: 7 days or 10,000 results, whichever is less, configurable.
    retentionMs: (parseInteger('retention (days)', s.retentionDays, 1, 3650) ?? DEFAULTS.retentionMs / 86_400_000) * 86_400_000,
    retentionMaxResults: parseInteger('retention (results)', s.retentionMax, 1, 1_000_000) ?? DEFAULTS.retentionMaxResults,
    errorsRotateBytes: DEFAULTS.errorsRotateBytes,
    errorsKeepFiles: DEFAULTS.errorsKeepFiles,
    workers: parseInteger('workers', s.workers, 0, 64) ?? defaultWorkers(),
    documents: Object.freeze({
      workers: defaultDocumentWorkers(),
      timeLimitMs: (parseInteger('document time limit (seconds)', s.documentTimeLimit, 1, 3600) ?? DEFAULTS.documentTimeLimitMs / 1000) * 1000,
      memoryLimitMb: parseInteger('document memory limit (MiB)', s.documentMemoryLimit, 32, 16_384) ?? DEFAULTS.documentMemoryLimitMb,
    }),
    net: Object.freeze({ ...(env.proxy ?? { httpProxy: null, httpsProxy: null, noProxy: null }) }),
    testFault: testFaultOf(s.testFault),
    allowRemote: s.allowRemote ?? false,
    rateLimit: parseRateLimit(s),
    headerTimeoutMs: parseSeconds('header timeout (seconds)', s.headerTimeout, DEFAULTS.headerTimeoutMs),
    bodyTimeoutMs: parseSeconds('body timeout (seconds)', s.bodyTimeout, DEFAULTS.bodyTimeoutMs),
    ...overrides,
  };
  return Object.freeze(config);
}

/** --rate-limit N (requests per second per application key, 0 = off) and --rate-burst (default 2 s worth). */
function parseRateLimit(s: RawSettings): Config['rateLimit'] {
  const perSecond = parseInteger('rate limit (requests per second)', s.rateLimit, 0, 1_000_000) ?? DEFAULTS.rateLimitPerSecond;
  const burst = parseInteger('rate burst (requests)', s.rateBurst, 1, 10_000_000);
  if (perSecond === 0) return null;
  return Object.freeze({ perSecond, burst: burst ?? perSecond * 2 });
}

function parseSeconds(name: string, value: string | undefined, fallbackMs: number): number {
  const seconds = parseInteger(name, value, 1, 3600);
  return seconds === undefined ? fallbackMs : seconds * 1000;
}
