import { defineCommand } from 'citty';
import { LocalsignError } from '../../errors/errors';
import { failLine, printData } from '../output';
import { resolveServiceAddress } from '../service-address';
import { configFromArgs } from '../settings';

export const statusCommand = defineCommand({
  meta: { name: 'status', description: "Ask the running service's /health (this config dir's service, wherever it listens); exit 1 when it is down" },
  args: {
    json: { type: 'boolean', description: 'Machine-readable output' },
    home: { type: 'string', description: 'Config dir' },
    host: { type: 'string', description: 'Service host (default: where the service of the config dir listens, else 127.0.0.1)' },
    port: { type: 'string', description: 'Service port (default: where the service of the config dir listens, else 8300)' },
  },
  async run({ args, rawArgs }) {
    const { config } = configFromArgs(args, rawArgs);
    const address = resolveServiceAddress(config, args);
    const url = `${address.base}/health`;
    let health: Record<string, unknown> | null = null;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      if (res.ok) health = (await res.json()) as Record<string, unknown>;
    } catch {
      health = null;
    }
    // The config dir is this one's only when its service is the one that answered (issue 11:
    // `status --port P` named the CLI's dir whatever service listened on P). Down: the dir asked about.
    const configDir = !health || address.ownDir ? config.home : null;
    const out = { ...(health ?? {}), reachable: health !== null, url, config_dir: configDir };
    if (!health) {
      // CONTRACT "Command line": a failure is one line on stderr; --json still gets its object.
      if (args.json) printData(true, out, () => '');
      process.exitCode = failLine(new LocalsignError('upstream', `localsign is not reachable at ${url} (config dir ${config.home})`));
      return;
    }
    const dir = configDir ?? `unknown (not ${config.home}, ${address.runningAt ? `whose service is at ${address.runningAt}` : 'which has no service running'})`;
    printData(Boolean(args.json), out, () =>
      `localsign ${String(health.version)} (${String(health.commit)}) at ${url}: paired=${String(health.paired)} tenant=${String(health.tenant_id)} credentials=${String((health.cache as { credentials?: number })?.credentials)} designs=${String((health.cache as { designs?: number })?.designs)}; config dir ${dir}`,
    );
  },
});
