import { existsSync } from 'node:fs';
import { buildConfig, type Config } from '../config/config';
import { LocalsignError } from '../domain/errors';
import type { RawSettings } from '../config/env';
import { readEnv } from '../config/env';
import { adoptHomeOwner } from '../config/home-owner';
import { AppContext } from '../context';
import { resolvePdfProcessEntry, resolveWorkerEntry } from '../workers/entry';
import { repeatedFlag } from './output';

/** Flags every command shares; `serve` adds its own. */
export const commonArgs = {
  json: { type: 'boolean', description: 'Machine-readable output' },
  home: { type: 'string', description: 'Config dir (default $LOCALSIGN_HOME or ~/.localsign)' },
} as const;

export function configFromArgs(args: Record<string, unknown>, rawArgs: string[] = []): { config: Config; env: ReturnType<typeof readEnv> } {
  const env = readEnv();
  const str = (k: string) => (typeof args[k] === 'string' && args[k] !== '' ? (args[k] as string) : undefined);
  const flags: RawSettings = {
    home: str('home'),
    host: str('host'),
    port: str('port'),
    maxBody: str('max-body'),
    maxBodyMemory: str('max-body-memory'),
    maxConnections: str('max-connections'),
    diskQuota: str('disk-quota'),
    requestTimeout: str('request-timeout'),
    tsaUrl: str('tsa-url'),
    padesLevel: str('pades-level'),
    trustFile: str('trust'),
    receiveListen: str('receive-listen'),
    workers: str('workers'),
    documentTimeLimit: str('document-time-limit'),
    documentMemoryLimit: str('document-memory-limit'),
    retentionDays: str('retention-days'),
    retentionMax: str('retention-max'),
    allowRemote: args['allow-remote'] === true ? true : undefined,
    rateLimit: str('rate-limit'),
    rateBurst: str('rate-burst'),
    headerTimeout: str('header-timeout'),
    bodyTimeout: str('body-timeout'),
    allowHost: repeatedFlag(rawArgs, 'allow-host').length ? repeatedFlag(rawArgs, 'allow-host') : undefined,
    allowOrigin: repeatedFlag(rawArgs, 'allow-origin').length ? repeatedFlag(rawArgs, 'allow-origin') : undefined,
  };
  return { config: buildConfig(env, flags), env };
}


export function openContext(args: Record<string, unknown>, rawArgs: string[] = []): AppContext {
  const { config, env } = configFromArgs(args, rawArgs);
  adoptHomeOwner(config.home);
  return new AppContext(config, { config, readVar: env.readVar, workerEntry: resolveWorkerEntry(), pdfWorkerEntry: resolvePdfProcessEntry(), noColor: env.noColor });
}

/**
 * For commands that only read or change what exists (wrapper:list, wrapper:revoke, report,
 * design:*): a config dir that is not there is an error, never created.
 */
export function openExistingContext(args: Record<string, unknown>, rawArgs: string[] = []): AppContext {
  const { config } = configFromArgs(args, rawArgs);
  if (!existsSync(config.home)) throw new LocalsignError('not_found', `no config dir at ${config.home} (\`localsign init\` creates one; --home or LOCALSIGN_HOME picks another)`);
  return openContext(args, rawArgs);
}
