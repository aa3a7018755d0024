import { win32 } from 'node:path';
import { readWindowsEnv } from './env';

/**
 * Windows' system tools, always by full path. A program named without a folder is
 * looked for in the current directory before PATH (libuv src/win/process.c, search_path(): "If
 * there's really only a filename, check the current directory for file, then search all path
 * directories"; CreateProcess does the same), so an administrator running `localsign
 * wrapper:create` in a folder a user can write would run that user's whoami.exe, elevated.
 * %SystemRoot%\System32 is writable by TrustedInstaller alone.
 */
const TOOLS = {
  whoami: 'System32\\whoami.exe',
  icacls: 'System32\\icacls.exe',
  sc: 'System32\\sc.exe',
  reg: 'System32\\reg.exe',
  // Windows PowerShell 5.1, part of every Windows since 10 and Server 2016 (the owner of a file:
  // Get-Acl, since icacls prints none).
  powershell: 'System32\\WindowsPowerShell\\v1.0\\powershell.exe',
} as const;
export type WindowsTool = keyof typeof TOOLS;

/** Where Windows is when %SystemRoot% says nothing usable (a drive-rooted path is all it can be). */
const DEFAULT_SYSTEM_ROOT = 'C:\\Windows';

/** The full path of a system tool: %SystemRoot%\System32\<tool>.exe. */
export function windowsToolPath(tool: WindowsTool, systemRoot: string | undefined = readWindowsEnv().systemRoot): string {
  const root = systemRoot && /^[A-Za-z]:\\/.test(systemRoot) ? systemRoot : DEFAULT_SYSTEM_ROOT;
  return win32.join(root, TOOLS[tool]);
}
