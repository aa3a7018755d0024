import { windowsToolPath } from '../config/windows-tools';
import { ConfigurationError } from '../domain/errors';
import type { OsManager } from './os-manager';
import { runChecked, type Runner } from './run-command';
import type { ServicePlan } from './service-plan';
import { parseScState, scCreateArgs } from './windows-service';

/** sc.exe: create or reconfigure (idempotent install), start, stop, delete; by full path (config/windows-tools.ts). */
export function windowsManager(logDir: string, sc: string = windowsToolPath('sc')): OsManager {
  const query = (plan: ServicePlan, run: Runner) => run(sc, ['query', plan.name]);
  const options = (plan: ServicePlan) => ({ exe: plan.exec[0]!, logDir, serviceFile: plan.serviceFile?.path ?? null });
  const waitFor = (plan: ServicePlan, run: Runner, state: 'running' | 'stopped') => {
    for (let i = 0; i < 60; i += 1) {
      if (parseScState(query(plan, run).stdout) === state) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
    throw new ConfigurationError(`the ${plan.name} service did not reach ${state} within 30 s: see ${plan.logs.join(' and ')}`);
  };
  return {
    register(plan, run) {
      if (plan.exec.length !== 1) throw new ConfigurationError('a Windows service runs localsign.exe (the single executable), not node with a script');
      const state = parseScState(query(plan, run).stdout);
      // Installed again (an upgrade): reconfigured in place. wine's sc has no `config`; there the
      // stopped service is deleted and created again, which a real SCM would refuse while any
      // handle to it is open ("marked for deletion"), hence config first.
      if (state !== null && run(sc, scCreateArgs('config', options(plan))).code !== 0) {
        if (state !== 'stopped') {
          run(sc, ['stop', plan.name]);
          waitFor(plan, run, 'stopped');
        }
        runChecked(run, sc, ['delete', plan.name]);
        runChecked(run, sc, scCreateArgs('create', options(plan)));
      } else if (state === null) {
        runChecked(run, sc, scCreateArgs('create', options(plan)));
      }
      run(sc, ['description', plan.name, 'Signs PDFs (PAdES) and EVM hashes for local applications over http://127.0.0.1']);
      return { registered: true };
    },
    unregister(plan, run) {
      const state = parseScState(query(plan, run).stdout);
      if (state === null) return;
      if (state !== 'stopped') {
        run(sc, ['stop', plan.name]);
        waitFor(plan, run, 'stopped');
      }
      runChecked(run, sc, ['delete', plan.name]);
    },
    start(plan, run, restart) {
      const state = parseScState(query(plan, run).stdout);
      if (state === 'running' && !restart) return;
      if (state === 'running') {
        runChecked(run, sc, ['stop', plan.name]);
        waitFor(plan, run, 'stopped');
      }
      runChecked(run, sc, ['start', plan.name]);
      waitFor(plan, run, 'running');
    },
    stop(plan, run) {
      if (parseScState(query(plan, run).stdout) === 'stopped') return;
      runChecked(run, sc, ['stop', plan.name]);
      waitFor(plan, run, 'stopped');
    },
    isInstalled: (plan, run) => parseScState(query(plan, run).stdout) !== null,
    isRunning(plan, run) {
      const state = parseScState(query(plan, run).stdout);
      return state === null ? false : state === 'running';
    },
  };
}
