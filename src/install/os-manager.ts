import type { ServicePlan } from './service-plan';
import type { Runner } from './run-command';

/**
 * What each OS service manager does for the verbs of `localsign service` (systemd, launchd, the
 * Windows SCM). Files and dirs are written by service-manager.ts; these only talk to the manager.
 */
export interface OsManager {
  /** Registers the written definition so it starts with the machine (or the user's session). */
  register(plan: ServicePlan, run: Runner): { registered: boolean; note?: string };
  unregister(plan: ServicePlan, run: Runner): void;
  start(plan: ServicePlan, run: Runner, restart: boolean): void;
  stop(plan: ServicePlan, run: Runner): void;
  /** Whether the manager knows the service (for Windows, the SCM; else the definition file). */
  isInstalled(plan: ServicePlan, run: Runner, definitionExists: boolean): boolean;
  /** null when the manager cannot be asked (systemd not running in a container). */
  isRunning(plan: ServicePlan, run: Runner): boolean | null;
}
