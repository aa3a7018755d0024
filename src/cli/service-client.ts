import { readFileSync } from 'node:fs';
import { LocalsignClient } from '../../clients/typescript/src/index';
import { readEnv } from '../config/env';
import { UsageError } from './output';
import { resolveServiceAddress } from './service-address';
import { commonArgs, configFromArgs } from './settings';
import { osErrorInWords } from '../domain/os-errors';

/**
 * Flags of the commands that call the running service over HTTP (`sign`, `results`, `errors`,
 * `credentials`, `designs`): they use the TypeScript client (clients/typescript), so the HTTP
 * code exists once. The key comes from LOCALSIGN_KEY/LOCALSIGN_SECRET (what `serve --demo`
 * prints), or --key with --secret-file; --secret exists for completeness, but a secret on the
 * command line is visible to every user of the machine in `ps`.
 */
export const serviceArgs = {
  ...commonArgs,
  url: { type: 'string', description: 'Service URL (default: the service of the config dir, else http://127.0.0.1:8300; env LOCALSIGN_URL)' },
  host: { type: 'string', description: 'Service host (instead of --url)' },
  port: { type: 'string', description: 'Service port (instead of --url)' },
  key: { type: 'string', description: 'Application key wrp_… (default env LOCALSIGN_KEY)' },
  'secret-file': { type: 'string', description: 'File holding the wsec_… secret (default env LOCALSIGN_SECRET)' },
  secret: { type: 'string', description: 'The wsec_… secret (prefer LOCALSIGN_SECRET or --secret-file: argv is visible in ps)' },
} as const;

/** The application key from --key with --secret-file (or --secret), else LOCALSIGN_KEY and LOCALSIGN_SECRET; null when either is missing. */
export function applicationKey(args: Record<string, unknown>): { key: string; secret: string } | null {
  const env = readEnv();
  const key = (args.key as string | undefined) || env.apiKey?.key || undefined;
  let secret = (args.secret as string | undefined) || undefined;
  if (args['secret-file']) {
    try {
      secret = readFileSync(String(args['secret-file']), 'utf8').trim();
    } catch (e) {
      throw new UsageError(`cannot read --secret-file ${String(args['secret-file'])}: ${osErrorInWords(e)}`);
    }
  }
  secret ??= env.apiKey?.secret ?? undefined;
  return key && secret ? { key, secret } : null;
}

export function serviceClient(args: Record<string, unknown>, rawArgs: string[]): LocalsignClient {
  const env = readEnv();
  const { config } = configFromArgs(args, rawArgs);
  const url = typeof args.url === 'string' ? args.url : (env.apiKey?.url ?? undefined);
  const address = resolveServiceAddress(config, { ...args, url });
  const credentials = applicationKey(args);
  if (!credentials) throw new UsageError('no application key: set LOCALSIGN_KEY and LOCALSIGN_SECRET (from `localsign wrapper:create` or `serve --demo`), or pass --key and --secret-file');
  try {
    return new LocalsignClient({ baseUrl: address.base, ...credentials });
  } catch (e) {
    // The client refuses a URL without http(s):// at once; said here in the flag's words.
    if (e instanceof TypeError) throw new UsageError(`--url (or LOCALSIGN_URL): ${e.message}`);
    throw e;
  }
}
