import { isAbsolute, join, posix, resolve, win32 } from 'node:path';
import { ConfigurationError } from '../domain/errors';
import type { ServiceFile } from '../config/service-file';
import { LAUNCHD_LABEL, renderLaunchdPlist } from './launchd-plist';
import { renderSystemdUnit } from './systemd-unit';
import { WINDOWS_SERVICE_NAME } from './windows-service';

export type Scope = 'system' | 'user';
export type Manager = 'systemd' | 'launchd' | 'windows';

/** The account the Linux system service runs as (a system user of its own, no login). */
export const SERVICE_USER = 'localsign';

/** Where a system service keeps its data: one place per OS, known to the installers. */
export function systemHome(platform: NodeJS.Platform, programData?: string): string {
  if (platform === 'win32') return win32.join(programData ?? 'C:\\ProgramData', 'localsign');
  if (platform === 'darwin') return '/Library/Application Support/localsign';
  return '/var/lib/localsign';
}

export interface PlanInput {
  platform: NodeJS.Platform;
  scope: Scope;
  /** How to start localsign: [exe] for the single executable, [node, bundle] otherwise. */
  exec: string[];
  /** An explicit --port; else the service file's, else the default. */
  port: number;
  userHome: string;
  uid?: number;
  programData?: string;
  /** The system service's settings file (config/service-file.ts); null when moved away. */
  serviceFilePath: string | null;
}

/** Everything `service install` writes and every name the other verbs use, decided in one place. */
export interface ServicePlan {
  manager: Manager;
  scope: Scope;
  /** systemd unit name, launchd label, Windows service name. */
  name: string;
  home: string;
  port: number;
  exec: string[];
  /** The unit or plist file (Windows: null, the SCM's registry holds it). */
  definitionPath: string | null;
  definition: string | null;
  /** Where a package manager puts the same definition (the .deb's unit): installed too. */
  packagedPaths: string[];
  /** system scope: the file the CLI and the service read to find `home` (null for --user). */
  serviceFile: { path: string; content: ServiceFile } | null;
  /** Where to look when it does not start. */
  logs: string[];
}

function managerOf(platform: NodeJS.Platform): Manager {
  if (platform === 'linux') return 'systemd';
  if (platform === 'darwin') return 'launchd';
  if (platform === 'win32') return 'windows';
  throw new ConfigurationError(`localsign service supports Linux (systemd), macOS (launchd) and Windows, not ${platform}`);
}

export function planService(i: PlanInput): ServicePlan {
  const manager = managerOf(i.platform);
  if (i.exec.some((p, n) => n < 2 && !(isAbsolute(p) || win32.isAbsolute(p)))) {
    throw new ConfigurationError(`the service needs an absolute path to the executable, got "${i.exec.join(' ')}"`);
  }
  const user = i.scope === 'user';
  const home = user ? (i.platform === 'win32' ? win32 : posix).join(i.userHome, '.localsign') : systemHome(i.platform, i.programData);
  // A user service names its dir and port on its own command line: the system service's file
  // (read when no home is given) must not pull it into the system service's dir.
  const args = user ? ['--home', home, '--port', String(i.port)] : [];
  const serviceFile = !user && i.serviceFilePath ? { path: i.serviceFilePath, content: { home, port: i.port } } : null;
  if (manager === 'systemd') {
    const path = user ? join(i.userHome, '.config', 'systemd', 'user', 'localsign.service') : '/etc/systemd/system/localsign.service';
    return {
      manager, scope: i.scope, name: 'localsign', home, port: i.port, exec: i.exec, serviceFile,
      definitionPath: path,
      definition: renderSystemdUnit({ exec: i.exec, scope: i.scope, home, user: SERVICE_USER, args }),
      packagedPaths: user ? [] : ['/lib/systemd/system/localsign.service', '/usr/lib/systemd/system/localsign.service'],
      logs: [join(home, 'service.log'), user ? 'journalctl --user -u localsign' : 'journalctl -u localsign'],
    };
  }
  if (manager === 'launchd') {
    const logDir = user ? join(i.userHome, 'Library', 'Logs', 'localsign') : '/Library/Logs/localsign';
    return {
      manager, scope: i.scope, name: LAUNCHD_LABEL, home, port: i.port, exec: i.exec, serviceFile,
      definitionPath: user ? join(i.userHome, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`) : `/Library/LaunchDaemons/${LAUNCHD_LABEL}.plist`,
      definition: renderLaunchdPlist({ exec: i.exec, scope: i.scope, logDir, args }),
      packagedPaths: [],
      logs: [join(home, 'service.log'), join(logDir, 'stderr.log')],
    };
  }
  if (user) {
    throw new ConfigurationError('a Windows service is machine-wide: run `localsign service install` without --user, from an elevated prompt');
  }
  return {
    manager, scope: 'system', name: WINDOWS_SERVICE_NAME, home, port: i.port, exec: i.exec, serviceFile,
    definitionPath: null, definition: null, packagedPaths: [],
    logs: [win32.join(home, 'service.log'), win32.join(home, 'logs')],
  };
}

/** How this process was started, for the service to start it the same way. */
export function currentExec(execPath: string, script: string | undefined, isSea: boolean): string[] {
  return isSea || !script ? [execPath] : [execPath, resolve(script)];
}
