import { readFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { LocalsignClient, LocalsignServiceProofError } from '../../../clients/typescript/src/index';
import { homePaths } from '../../config/paths';
import { escapeControls } from '../../log/escape';
import type { CatalogCache } from '../../store/catalog-types';
import { CommandError, EXIT_UNREACHABLE, failLine, printData } from '../output';
import { resolveServiceAddress } from '../service-address';
import { applicationKey } from '../service-client';
import { configFromArgs } from '../settings';

/**
 * The chip credentials of the config dir's catalogue and how each takes its PIN (read
 * once at sync, shown here): `pin_per_signature` is the key's CKA_ALWAYS_AUTHENTICATE.
 */
function chipCredentialsOf(home: string): { credential_key: string; name: string; pin_per_signature: boolean | null; pin_per_request: boolean }[] {
  let cache: CatalogCache;
  try {
    cache = JSON.parse(readFileSync(homePaths(home).cache, 'utf8')) as CatalogCache;
  } catch {
    return [];
  }
  return (cache.credentials ?? [])
    // Keys on a PKCS#11 chip: only a sync binding a credential to one sets these (the software
    // chip's keys say nothing of a PIN).
    .filter((c) => c.pin_per_signature !== undefined || c.pin_per_request)
    .map((c) => ({ credential_key: c.credential_key, name: c.name, pin_per_signature: c.pin_per_signature ?? null, pin_per_request: c.pin_per_request === true }));
}

export const statusCommand = defineCommand({
  meta: { name: 'status', description: "Ask the running service's /health (this config dir's service, wherever it listens); exit 3 when it is down, as for every command that calls it" },
  args: {
    json: { type: 'boolean', description: 'Machine-readable output' },
    home: { type: 'string', description: 'Config dir' },
    host: { type: 'string', description: 'Service host (default: where the service of the config dir listens, else 127.0.0.1)' },
    port: { type: 'string', description: 'Service port (default: where the service of the config dir listens, else 8300)' },
    key: { type: 'string', description: 'Application key wrp_… (default env LOCALSIGN_KEY): with its secret, the service must prove it holds it' },
    'secret-file': { type: 'string', description: 'File holding the wsec_… secret (default env LOCALSIGN_SECRET)' },
  },
  async run({ args, rawArgs }) {
    const { config } = configFromArgs(args, rawArgs);
    const address = resolveServiceAddress(config, args);
    const url = `${address.base}/health`;
    // With an application key the answer must prove the service holds it (X-Localsign-Proof):
    // another program on the address (the service down, another user on its port) is not reported
    // as the service. Without one, /health is public and proves nothing: it is shown as it answers.
    const credentials = applicationKey(args);
    let health: Record<string, unknown> | null = null;
    let unproven: LocalsignServiceProofError | null = null;
    try {
      // The client, not fetch: one HTTP path for the CLI, and no 200 ms of undici (client's transport.ts).
      const client = new LocalsignClient({ baseUrl: address.base, ...(credentials ?? {}) });
      health = (await client.health({ signal: AbortSignal.timeout(3000), prove: credentials !== null })) as unknown as Record<string, unknown>;
    } catch (e) {
      if (e instanceof LocalsignServiceProofError) unproven = e;
      health = null;
    }
    // The config dir is this one's only when its service is the one that answered (`status
    // --port P` must not name the CLI's dir whatever service listens on P). Down: the dir asked
    // about.
    const configDir = !health || address.ownDir ? config.home : null;
    const proven = credentials ? { proven: health !== null } : {};
    const out = { ...(health ?? {}), reachable: health !== null, ...proven, url, config_dir: configDir };
    if (unproven) {
      if (args.json) printData(true, out, () => '');
      process.exitCode = failLine(unproven);
      return;
    }
    if (!health) {
      // CONTRACT "Command line": a failure is one line on stderr; --json still gets its object.
      if (args.json) printData(true, out, () => '');
      process.exitCode = failLine(new CommandError(`localsign is not reachable at ${url} (config dir ${config.home})`, EXIT_UNREACHABLE));
      return;
    }
    const dir = configDir ?? `unknown (not ${config.home}, ${address.runningAt ? `whose service is at ${address.runningAt}` : 'which has no service running'})`;
    const chipCredentials = configDir ? chipCredentialsOf(configDir) : [];
    // Only where there is a PKCS#11 chip: otherwise the object is /health's with config_dir and reachable (CONTRACT).
    const data = chipCredentials.length > 0 ? { ...out, chip_credentials: chipCredentials } : out;
    printData(Boolean(args.json), data, () =>
      [
        `localsign ${String(health.version)} (${String(health.commit)}) at ${url}: paired=${String(health.paired)} tenant=${String(health.tenant_id)} credentials=${String((health.cache as { credentials?: number })?.credentials)} designs=${String((health.cache as { designs?: number })?.designs)}${health.chip ? ` chip=${String(health.chip)}` : ''}; config dir ${dir}${credentials ? `; it proved it holds ${credentials.key}` : ''}`,
        ...chipCredentials.map((c) =>
          escapeControls(`  chip credential ${c.credential_key} (${c.name}): ${c.pin_per_request ? 'PIN from each request (chip_pin)' : 'PIN stored or on the PIN pad'}${c.pin_per_signature === true ? ', PIN for every signature' : c.pin_per_signature === false ? '' : ', PIN per signature unknown (not readable without a login)'}`),
        ),
      ].join('\n'),
    );
  },
});
