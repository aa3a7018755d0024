import { defineCommand, type CommandDef } from 'citty';
import { LocalsignClient } from '../../../clients/typescript/src/index';
import { existsSync, readFileSync } from 'node:fs';
import { readEnv } from '../../config/env';
import { readServiceFile } from '../../config/service-file';
import { installService, serviceStatus, startInstalled, stopInstalled, uninstallService, type ManagerDeps } from '../../install/service-manager';
import { currentExec, planService, type ServicePlan } from '../../install/service-plan';
import { runCommand } from '../../install/run-command';
import { DEFAULTS } from '../../config/config';
import { EXIT_FAILURE, EXIT_UNREACHABLE, printData, UsageError } from '../output';

const shared = {
  user: { type: 'boolean', description: 'A service of your own (systemd --user unit, launchd LaunchAgent) instead of the system one' },
  json: { type: 'boolean', description: 'Machine-readable output' },
  port: { type: 'string', description: 'Port the service listens on (default: the installed one, else 8300)' },
} as const;

function isSea(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false;
  }
}

/** The port a --user service was installed with: it is on its own command line (service-plan.ts). */
function installedUserPort(definitionPath: string | null): number | undefined {
  if (!definitionPath || !existsSync(definitionPath)) return undefined;
  const m = /--port(?:<\/string>\s*<string>|\s+)"?(\d+)/.exec(readFileSync(definitionPath, 'utf8'));
  return m ? Number(m[1]) : undefined;
}

function planFrom(args: Record<string, unknown>): ServicePlan {
  const env = readEnv();
  const scope = args.user ? 'user' : 'system';
  const explicit = typeof args.port === 'string' && args.port !== '' ? Number(args.port) : undefined;
  if (explicit !== undefined && !(Number.isInteger(explicit) && explicit >= 1 && explicit <= 65535)) throw new UsageError('--port must be an integer from 1 to 65535');
  const exe = typeof args.exe === 'string' && args.exe !== '' ? [args.exe] : currentExec(process.execPath, process.argv[1], isSea());
  const input = {
    platform: process.platform, scope, exec: exe, userHome: env.userHome, programData: env.programData,
    serviceFilePath: env.serviceFile ?? null, port: DEFAULTS.port,
  } as const;
  const installed = scope === 'system'
    ? (env.serviceFile ? readServiceFile(env.serviceFile)?.port : undefined)
    : installedUserPort(planService(input).definitionPath);
  return planService({ ...input, port: explicit ?? installed ?? DEFAULTS.port });
}

function deps(): ManagerDeps {
  return {
    run: runCommand,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    async health(port) {
      try {
        const client = new LocalsignClient({ baseUrl: `http://127.0.0.1:${port}` });
        return (await client.health({ signal: AbortSignal.timeout(3000) })) as unknown as Record<string, unknown>;
      } catch {
        return null;
      }
    },
  };
}

const install = defineCommand({
  meta: { name: 'install', description: 'Register localsign as a service that starts with the machine (idempotent), and start it' },
  args: {
    ...shared,
    'no-start': { type: 'boolean', description: 'Register only; start later with `localsign service start`' },
    'no-register': { type: 'boolean', description: 'Prepare the config dir and service file only (the MSI registers the service itself)' },
    print: { type: 'boolean', description: 'Print what would be written (unit or plist, service file) and change nothing' },
    exe: { type: 'string', description: 'Executable the service runs (default: this one)' },
  },
  async run({ args }) {
    const plan = planFrom(args);
    if (args.print) {
      printData(Boolean(args.json), { ...plan }, () => [plan.definitionPath ?? `(${plan.name}: registered with the service manager)`, plan.definition ?? '', ...(plan.serviceFile ? [plan.serviceFile.path, JSON.stringify(plan.serviceFile.content)] : [])].join('\n'));
      return;
    }
    // citty reads --no-start as start: false.
    const start = !(args['no-start'] === true || (args as { start?: boolean }).start === false);
    const register = !(args['no-register'] === true || (args as { register?: boolean }).register === false);
    const result = await installService(plan, deps(), { start: start && register, register });
    printData(Boolean(args.json), { ...result, name: plan.name, scope: plan.scope, port: plan.port, config_dir: plan.home, definition: plan.definitionPath, service_file: plan.serviceFile?.path ?? null }, () =>
      [`localsign service installed (${plan.scope}, ${plan.manager} ${plan.name}) on port ${plan.port}, config dir ${plan.home}${result.started ? ', started' : ''}`, ...(result.note ? [result.note] : [])].join('\n'),
    );
  },
});

const uninstall = defineCommand({
  meta: { name: 'uninstall', description: 'Stop and unregister the service; its config dir stays unless --purge' },
  args: { ...shared, purge: { type: 'boolean', description: 'Also delete the config dir (keys, credentials, results) and the service user' } },
  async run({ args }) {
    const plan = planFrom(args);
    const result = await uninstallService(plan, deps(), { purge: Boolean(args.purge) });
    printData(Boolean(args.json), { ...result, name: plan.name, scope: plan.scope, config_dir: plan.home }, () =>
      `localsign service ${result.removed ? 'removed' : 'was not installed'}; ${result.purged ? `${plan.home} deleted` : `data kept in ${plan.home} (delete it with --purge)`}`,
    );
  },
});

const start = defineCommand({
  meta: { name: 'start', description: 'Start the installed service' },
  args: shared,
  async run({ args }) {
    const plan = planFrom(args);
    startInstalled(plan, deps());
    printData(Boolean(args.json), { started: true, name: plan.name, port: plan.port }, () => `localsign service started on port ${plan.port}`);
  },
});

const stop = defineCommand({
  meta: { name: 'stop', description: 'Stop the installed service (in-flight work drains; PENDING requests resume at the next start)' },
  args: shared,
  async run({ args }) {
    const plan = planFrom(args);
    stopInstalled(plan, deps());
    printData(Boolean(args.json), { stopped: true, name: plan.name }, () => 'localsign service stopped');
  },
});

const status = defineCommand({
  meta: { name: 'status', description: 'Installed, running and healthy (/health answers), with the port, config dir and logs; exit 3 when installed but not answering, 1 when not installed' },
  args: shared,
  async run({ args }) {
    const plan = planFrom(args);
    const s = await serviceStatus(plan, deps());
    const yes = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');
    printData(Boolean(args.json), s, () =>
      [
        `localsign service (${s.scope}, ${s.manager} ${s.name}): installed=${yes(s.installed)} running=${yes(s.running)} healthy=${yes(s.healthy)} port=${s.port}`,
        `config dir: ${s.config_dir}${s.service_file ? ` (named in ${s.service_file})` : ''}`,
        `logs: ${s.logs.join(', ')}`,
      ].join('\n'),
    );
    // The same code as every command that finds the service not running: 3.
    if (!s.healthy) process.exitCode = s.installed ? EXIT_UNREACHABLE : EXIT_FAILURE;
  },
});

export const serviceCommand = defineCommand({
  meta: { name: 'service', description: 'Install, remove, start, stop or check localsign as an OS service (systemd, launchd, Windows)' },
  subCommands: { install, uninstall, start, stop, status } as Record<string, CommandDef>,
});
