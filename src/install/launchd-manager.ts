import type { OsManager } from './os-manager';
import { runChecked, type Runner } from './run-command';
import type { ServicePlan } from './service-plan';

/**
 * launchctl(1), the bootstrap/kickstart verbs (macOS 10.11+): the domain is `system` for a
 * LaunchDaemon, `gui/<uid>` for a LaunchAgent.
 */
export function launchdDomain(plan: ServicePlan, uid: number): string {
  return plan.scope === 'system' ? 'system' : `gui/${uid}`;
}

export function launchdManager(uid: number): OsManager {
  const target = (plan: ServicePlan) => `${launchdDomain(plan, uid)}/${plan.name}`;
  const loaded = (plan: ServicePlan, run: Runner) => run('launchctl', ['print', target(plan)]);
  return {
    register(plan, run) {
      // Idempotent: a job loaded from an older plist is booted out, then the new one loaded (RunAtLoad starts it).
      if (loaded(plan, run).code === 0) run('launchctl', ['bootout', target(plan)]);
      run('launchctl', ['enable', target(plan)]);
      runChecked(run, 'launchctl', ['bootstrap', launchdDomain(plan, uid), plan.definitionPath!]);
      return { registered: true };
    },
    unregister(plan, run) {
      if (loaded(plan, run).code === 0) run('launchctl', ['bootout', target(plan)]);
    },
    start(plan, run, restart) {
      runChecked(run, 'launchctl', ['kickstart', ...(restart ? ['-k'] : []), target(plan)]);
    },
    stop(plan, run) {
      // SIGTERM: drain and exit 0; KeepAlive restarts only after an unsuccessful exit.
      runChecked(run, 'launchctl', ['kill', 'SIGTERM', target(plan)]);
    },
    isInstalled: (_plan, _run, definitionExists) => definitionExists,
    isRunning(plan, run) {
      const r = loaded(plan, run);
      if (r.code !== 0) return false;
      return /^\s*state = running/m.test(r.stdout);
    },
  };
}
