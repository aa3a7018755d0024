import { buildConfig, type Config } from '../config/config';
import type { RawSettings } from '../config/env';
import { readEnv } from '../config/env';
import { AppContext } from '../context';
import { resolveWorkerEntry } from '../signing/worker-entry';
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
    requestTimeout: str('request-timeout'),
    tsaUrl: str('tsa-url'),
    workers: str('workers'),
    retentionDays: str('retention-days'),
    retentionMax: str('retention-max'),
    allowHost: repeatedFlag(rawArgs, 'allow-host').length ? repeatedFlag(rawArgs, 'allow-host') : undefined,
    allowOrigin: repeatedFlag(rawArgs, 'allow-origin').length ? repeatedFlag(rawArgs, 'allow-origin') : undefined,
  };
  return { config: buildConfig(env, flags), env };
}


export function openContext(args: Record<string, unknown>, rawArgs: string[] = []): AppContext {
  const { config, env } = configFromArgs(args, rawArgs);
  return new AppContext(config, { config, readVar: env.readVar, workerEntry: resolveWorkerEntry() });
}
