import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, win32 } from 'node:path';
import { removeServiceFile, writeServiceFile } from '../config/service-file';
import { ConfigurationError } from '../domain/errors';
import { launchdManager } from './launchd-manager';
import type { OsManager } from './os-manager';
import { runChecked, type Runner } from './run-command';
import { SERVICE_USER, type ServicePlan } from './service-plan';
import { systemdManager } from './systemd-manager';
import { secureServiceDataDir } from './windows-data-dir';
import { windowsManager } from './windows-manager';
import { addToSystemPath, removeFromSystemPath } from './windows-path';

export interface ManagerDeps {
  run: Runner;
  /** null on Windows. */
  uid: number | null;
  /** GET /health on the service's port; null when nothing answers. */
  health(port: number): Promise<Record<string, unknown> | null>;
}

export interface InstallResult {
  installed: true;
  started: boolean;
  note?: string;
}

export interface ServiceStatus {
  manager: ServicePlan['manager'];
  scope: ServicePlan['scope'];
  name: string;
  installed: boolean;
  /** null when the service manager cannot be asked (systemd not running here). */
  running: boolean | null;
  healthy: boolean;
  port: number;
  url: string;
  config_dir: string;
  service_file: string | null;
  definition: string | null;
  logs: string[];
  version?: unknown;
  paired?: unknown;
}

function managerFor(plan: ServicePlan, deps: ManagerDeps): OsManager {
  if (plan.manager === 'systemd') return systemdManager;
  if (plan.manager === 'launchd') return launchdManager(deps.uid ?? 0);
  return windowsManager(win32.join(plan.home, 'logs'));
}

function assertPrivileged(plan: ServicePlan, deps: ManagerDeps): void {
  if (plan.scope === 'system' && deps.uid !== null && deps.uid !== 0) {
    throw new ConfigurationError('a system service is installed by root: run `sudo localsign service …`, or add --user for a service of your own');
  }
}

/** The config dir, private to the account the service runs as (CONTRACT Security: 0700). */
function prepareHome(plan: ServicePlan, deps: ManagerDeps): void {
  if (plan.manager === 'windows') {
    // SYSTEM (the service) and Administrators (the CLI, elevated) only, and owned by one of them
    // (a dir a user made before the install is re-owned or refused).
    secureServiceDataDir(plan.home, { run: deps.run });
    return;
  }
  mkdirSync(plan.home, { recursive: true, mode: 0o700 });
  // launchd opens StandardErrorPath but does not create its folder.
  if (plan.manager === 'launchd') mkdirSync(dirname(plan.logs[1]!), { recursive: true, mode: 0o755 });
  if (plan.manager === 'systemd' && plan.scope === 'system') {
    if (deps.run('getent', ['passwd', SERVICE_USER]).code !== 0) {
      runChecked(deps.run, 'useradd', ['--system', '--user-group', '--home-dir', plan.home, '--no-create-home', '--shell', '/usr/sbin/nologin', '--comment', 'localsign signing service', SERVICE_USER]);
    }
    const ids = { uid: Number(runChecked(deps.run, 'id', ['-u', SERVICE_USER]).stdout.trim()), gid: Number(runChecked(deps.run, 'id', ['-g', SERVICE_USER]).stdout.trim()) };
    if (statSync(plan.home).uid !== ids.uid) chownSync(plan.home, ids.uid, ids.gid);
  }
}

/**
 * `register: false` prepares the config dir and the service file only: the MSI registers the
 * service and puts localsign on PATH itself (its ServiceInstall, ServiceControl and Environment
 * rows, installers/windows/localsign.wxs), so Windows Installer removes them again on uninstall
 * and rollback.
 */
export async function installService(plan: ServicePlan, deps: ManagerDeps, options: { start: boolean; register?: boolean }): Promise<InstallResult> {
  assertPrivileged(plan, deps);
  const manager = managerFor(plan, deps);
  prepareHome(plan, deps);
  if (plan.serviceFile) writeServiceFile(plan.serviceFile.path, plan.serviceFile.content);
  if (options.register === false) return { installed: true, started: false };
  let changed = true;
  if (plan.definitionPath && plan.definition !== null) {
    changed = !existsSync(plan.definitionPath) || readFileSync(plan.definitionPath, 'utf8') !== plan.definition;
    mkdirSync(dirname(plan.definitionPath), { recursive: true, mode: 0o755 });
    writeFileSync(plan.definitionPath, plan.definition, { mode: 0o644 });
  }
  const wasRunning = manager.isRunning(plan, deps.run) === true;
  const registration = manager.register(plan, deps.run);
  const note = [registration.note, plan.manager === 'windows' ? putOnPath(plan, deps) : undefined].filter(Boolean).join('; ');
  if (!registration.registered || !options.start) return { installed: true, started: false, ...(note ? { note } : {}) };
  // Installed again over a running service: restarted only when its definition changed.
  manager.start(plan, deps.run, wasRunning && changed);
  return { installed: true, started: true, ...(note ? { note } : {}) };
}

/**
 * localsign.exe on the system PATH, for the CLI commands the docs have administrators run; a Path
 * that cannot be read is a note, not a failed install (the service itself is registered).
 */
function putOnPath(plan: ServicePlan, deps: ManagerDeps): string | undefined {
  try {
    addToSystemPath(win32.dirname(plan.exec[0]!), deps.run);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigurationError) return `localsign is not on PATH: ${error.message}`;
    throw error;
  }
}

export async function uninstallService(plan: ServicePlan, deps: ManagerDeps, options: { purge: boolean }): Promise<{ removed: boolean; purged: boolean }> {
  assertPrivileged(plan, deps);
  const manager = managerFor(plan, deps);
  const defined = plan.definitionPath !== null && existsSync(plan.definitionPath);
  const removed = manager.isInstalled(plan, deps.run, defined);
  manager.unregister(plan, deps.run);
  if (plan.manager === 'windows') removeFromSystemPath(win32.dirname(plan.exec[0]!), deps.run);
  if (plan.definitionPath) rmSync(plan.definitionPath, { force: true });
  // Without --purge the data and the file naming it stay (as `dpkg -r` keeps conffiles): a
  // reinstall finds its keys, credentials and results, and the CLI can still read them.
  if (options.purge) {
    rmSync(plan.home, { recursive: true, force: true });
    if (plan.serviceFile) removeServiceFile(plan.serviceFile.path);
    if (plan.manager === 'systemd' && plan.scope === 'system' && deps.run('getent', ['passwd', SERVICE_USER]).code === 0) {
      runChecked(deps.run, 'userdel', [SERVICE_USER]);
    }
  }
  return { removed, purged: options.purge };
}

export function startInstalled(plan: ServicePlan, deps: ManagerDeps, restart = false): void {
  assertPrivileged(plan, deps);
  managerFor(plan, deps).start(plan, deps.run, restart);
}

export function stopInstalled(plan: ServicePlan, deps: ManagerDeps): void {
  assertPrivileged(plan, deps);
  managerFor(plan, deps).stop(plan, deps.run);
}

/** Installed (the manager knows it), running (the manager says so), healthy (/health answers on its port). */
export async function serviceStatus(plan: ServicePlan, deps: ManagerDeps): Promise<ServiceStatus> {
  const manager = managerFor(plan, deps);
  const defined = [plan.definitionPath, ...plan.packagedPaths].some((p) => p !== null && existsSync(p));
  const installed = manager.isInstalled(plan, deps.run, defined);
  const health = await deps.health(plan.port);
  return {
    manager: plan.manager,
    scope: plan.scope,
    name: plan.name,
    installed,
    running: installed ? manager.isRunning(plan, deps.run) : false,
    healthy: health?.ok === true,
    port: plan.port,
    url: `http://127.0.0.1:${plan.port}`,
    config_dir: plan.home,
    service_file: plan.serviceFile?.path ?? null,
    definition: [plan.definitionPath, ...plan.packagedPaths].find((p) => p !== null && existsSync(p)) ?? plan.definitionPath,
    logs: plan.logs,
    ...(health ? { version: health.version, paired: health.paired } : {}),
  };
}
