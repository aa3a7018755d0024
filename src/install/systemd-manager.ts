import { ConfigurationError } from '../domain/errors';
import type { OsManager } from './os-manager';
import { runChecked, type Runner } from './run-command';
import type { ServicePlan } from './service-plan';

/** systemctl's answers when no systemd manages this machine or session (containers, CI, WSL1). */
const NO_SYSTEMD = /not been booted with systemd|Failed to connect to bus|No medium found|Failed to connect to user scope bus/i;

const scopeArgs = (plan: ServicePlan) => (plan.scope === 'user' ? ['--user'] : []);

function systemctl(run: Runner, plan: ServicePlan, args: string[]) {
  return run('systemctl', [...scopeArgs(plan), ...args]);
}

/** Whether systemd answers for this scope; its absence is said, not an error (the unit is still written). */
function systemdAbsent(run: Runner, plan: ServicePlan): string | null {
  const r = systemctl(run, plan, ['daemon-reload']);
  if (r.code === 0) return null;
  const said = (r.stderr || r.stdout).trim().split('\n')[0] ?? '';
  if (NO_SYSTEMD.test(said) || r.code === null) return said || 'systemctl did not run';
  throw new ConfigurationError(`systemctl ${scopeArgs(plan).join(' ')} daemon-reload failed: ${said}`.replace('  ', ' '));
}

export const systemdManager: OsManager = {
  register(plan, run) {
    const absent = systemdAbsent(run, plan);
    if (absent) {
      return {
        registered: false,
        note: `systemd is not running for this ${plan.scope === 'user' ? 'user session' : 'machine'} (${absent}): ${plan.definitionPath} is written; it is enabled when systemd runs (systemctl ${scopeArgs(plan).join(' ')} enable --now localsign)`.replace('  ', ' '),
      };
    }
    runChecked(run, 'systemctl', [...scopeArgs(plan), 'enable', plan.name]);
    return { registered: true };
  },
  unregister(plan, run) {
    if (systemdAbsent(run, plan)) return;
    systemctl(run, plan, ['disable', '--now', plan.name]);
    systemctl(run, plan, ['daemon-reload']);
  },
  start(plan, run, restart) {
    if (systemdAbsent(run, plan)) throw new ConfigurationError(`systemd is not running here: start the service with \`${plan.exec.join(' ')} serve\` instead`);
    runChecked(run, 'systemctl', [...scopeArgs(plan), restart ? 'restart' : 'start', plan.name]);
  },
  stop(plan, run) {
    if (systemdAbsent(run, plan)) throw new ConfigurationError('systemd is not running here: there is no systemd service to stop');
    runChecked(run, 'systemctl', [...scopeArgs(plan), 'stop', plan.name]);
  },
  isInstalled: (_plan, _run, definitionExists) => definitionExists,
  isRunning(plan, run) {
    const r = systemctl(run, plan, ['is-active', plan.name]);
    const state = r.stdout.trim();
    if (state === 'active' || state === 'reloading') return true;
    if (r.code === null || NO_SYSTEMD.test(r.stderr) || state === '') return null;
    return false;
  },
};
