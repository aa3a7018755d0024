import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '../errors/errors';
import type { EnvSnapshot, RawSettings } from './env';

/** Defaults fixed by CONTRACT.md (listen, body limit, retention, request timeout). */
export const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8300,
  maxBodyBytes: 256 * 1024 * 1024,
  requestTimeoutMs: 10 * 60 * 1000,
  retentionMs: 7 * 24 * 3600 * 1000,
  retentionMaxResults: 10_000,
  errorsRotateBytes: 10 * 1024 * 1024,
  errorsKeepFiles: 5,
});

export interface Config {
  readonly home: string;
  readonly host: string;
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly requestTimeoutMs: number;
  readonly tsaUrl: string | null;
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
}

function parseInteger(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigurationError(`${name} must be an integer from ${min} to ${max}, got "${value.slice(0, 20)}"`);
  }
  return Number(value);
}

/**
 * Signing threads: one per core but the event loop's, at least 2 (on 2 cores, 2 workers gave
 * 1,317-1,407 EVM signatures/s against 1,185-1,209 with 1: `BENCH_WORKERS=1|2 node test/bench/run.mjs evm`), at most 8.
 */
function defaultWorkers(): number {
  return Math.min(8, Math.max(2, availableParallelism() - 1));
}

/** Flags win over environment variables, which win over defaults (CONTRACT "listen"). */
export function buildConfig(env: EnvSnapshot, flags: RawSettings = {}, overrides: Partial<Config> = {}): Config {
  const s = { ...env.settings, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) } as RawSettings;
  const timeoutSeconds = parseInteger('request timeout (seconds)', s.requestTimeout, 1, 7 * 24 * 3600);
  const config: Config = {
    // Absolute, so messages and `status` name the real place whatever the working directory.
    home: resolve(s.home ?? join(env.userHome, '.localsign')),
    host: s.host ?? DEFAULTS.host,
    port: parseInteger('port', s.port, 0, 65535) ?? DEFAULTS.port,
    maxBodyBytes: parseInteger('max body (bytes)', s.maxBody, 1, Number.MAX_SAFE_INTEGER) ?? DEFAULTS.maxBodyBytes,
    requestTimeoutMs: timeoutSeconds === undefined ? DEFAULTS.requestTimeoutMs : timeoutSeconds * 1000,
    tsaUrl: s.tsaUrl ?? null,
    allowHosts: (s.allowHost ?? []).map((h) => h.toLowerCase()),
    allowOrigins: s.allowOrigin ?? [],
    // CONTRACT: 7 days or 10,000 results, whichever is less, configurable.
    retentionMs: (parseInteger('retention (days)', s.retentionDays, 1, 3650) ?? DEFAULTS.retentionMs / 86_400_000) * 86_400_000,
    retentionMaxResults: parseInteger('retention (results)', s.retentionMax, 1, 1_000_000) ?? DEFAULTS.retentionMaxResults,
    errorsRotateBytes: DEFAULTS.errorsRotateBytes,
    errorsKeepFiles: DEFAULTS.errorsKeepFiles,
    workers: parseInteger('workers', s.workers, 0, 64) ?? defaultWorkers(),
    ...overrides,
  };
  return Object.freeze(config);
}
