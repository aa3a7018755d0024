import { defineCommand } from 'citty';
import { configFromArgs } from '../settings';
import { LocalsignError } from '../../errors/errors';
import { failLine, printData } from '../output';

export const statusCommand = defineCommand({
  meta: { name: 'status', description: "Ask the running service's /health; exit 1 when it is down" },
  args: {
    json: { type: 'boolean', description: 'Machine-readable output' },
    home: { type: 'string', description: 'Config dir' },
    host: { type: 'string', description: 'Service host (default 127.0.0.1)' },
    port: { type: 'string', description: 'Service port (default 8300)' },
  },
  async run({ args, rawArgs }) {
    const { config } = configFromArgs(args, rawArgs);
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${config.port}/health`;
    let health: Record<string, unknown> | null = null;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      if (res.ok) health = (await res.json()) as Record<string, unknown>;
    } catch {
      health = null;
    }
    const out = { ...(health ?? {}), reachable: health !== null, url, config_dir: config.home };
    if (!health) {
      // CONTRACT "Command line": a failure is one line on stderr; --json still gets its object.
      if (args.json) printData(true, out, () => '');
      process.exitCode = failLine(new LocalsignError('upstream', `localsign is not reachable at ${url} (config dir ${config.home})`));
      return;
    }
    printData(Boolean(args.json), out, () =>
      `localsign ${String(health.version)} (${String(health.commit)}) at ${url}: paired=${String(health.paired)} tenant=${String(health.tenant_id)} credentials=${String((health.cache as { credentials?: number })?.credentials)} designs=${String((health.cache as { designs?: number })?.designs)}; config dir ${config.home}`,
    );
  },
});
