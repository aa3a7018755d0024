import { windowsToolPath } from '../config/windows-tools';
import { ConfigurationError } from '../domain/errors';
import { runChecked, type Runner } from './run-command';

/**
 * localsign on the system PATH: the docs have administrators run `localsign …` in an
 * elevated prompt, so `service install` on Windows appends the executable's folder to the
 * machine's Path and `service uninstall` takes it out again. The NSIS installer runs those and
 * then broadcasts WM_SETTINGCHANGE, so prompts opened afterwards see it; the MSI does the same
 * with its Environment table (build/msi.mjs) and runs `service install --no-register`, which
 * leaves Path alone.
 *
 * Read and written with reg.exe, not within the installer: NSIS strings stop at 1024 characters
 * (NSIS_MAX_STRLEN), and a Path that long is common; written back cut short, it would lose
 * entries.
 */
export const SYSTEM_ENVIRONMENT_KEY = 'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment';

/** Path entries compare without case and without a trailing backslash, as Windows resolves them. */
const sameDir = (a: string, b: string) => a.trim().replace(/\\+$/, '').toLowerCase() === b.trim().replace(/\\+$/, '').toLowerCase();

/** `path` with `dir` last, or unchanged when an entry is that folder already. */
export function pathWith(path: string, dir: string): string {
  if (path.split(';').some((p) => sameDir(p, dir))) return path;
  const kept = path.replace(/;+$/, '');
  return kept === '' ? dir : `${kept};${dir}`;
}

/** `path` without any entry naming `dir` (the others, empty ones included, as they were). */
export function pathWithout(path: string, dir: string): string {
  return path
    .split(';')
    .filter((p) => !sameDir(p, dir))
    .join(';');
}

/** `reg query KEY /v Path` output: "    Path    REG_EXPAND_SZ    %SystemRoot%\system32;…". */
export function parsePathValue(stdout: string): { type: 'REG_SZ' | 'REG_EXPAND_SZ'; value: string } | null {
  const m = /^\s*Path\s+(REG_EXPAND_SZ|REG_SZ)(?:[ \t]{4}(.*))?$/im.exec(stdout);
  return m ? { type: m[1]!.toUpperCase() as 'REG_SZ' | 'REG_EXPAND_SZ', value: (m[2] ?? '').replace(/\r$/, '') } : null;
}

function updateSystemPath(change: (path: string) => string, run: Runner, reg: string): boolean {
  // Not read, never written: a Path rewritten from nothing would drop every other entry.
  const read = run(reg, ['query', SYSTEM_ENVIRONMENT_KEY, '/v', 'Path']);
  const current = read.code === 0 ? parsePathValue(read.stdout) : null;
  if (!current) {
    const said = (read.stderr || read.stdout).trim().split('\n')[0] || 'no Path value in its answer';
    throw new ConfigurationError(`could not read the system Path from ${SYSTEM_ENVIRONMENT_KEY} (${reg}: ${said}); add the folder to Path yourself`);
  }
  const after = change(current.value);
  if (after === current.value) return false;
  // Keeps %SystemRoot% and the like unexpanded: Windows' own Path is REG_EXPAND_SZ.
  runChecked(run, reg, ['add', SYSTEM_ENVIRONMENT_KEY, '/v', 'Path', '/t', current.type, '/d', after, '/f']);
  return true;
}

/** Appends `dir` to the machine's Path; false when it was there already. */
export function addToSystemPath(dir: string, run: Runner, reg: string = windowsToolPath('reg')): boolean {
  return updateSystemPath((p) => pathWith(p, dir), run, reg);
}

/** Takes `dir` out of the machine's Path; false when it was not there. */
export function removeFromSystemPath(dir: string, run: Runner, reg: string = windowsToolPath('reg')): boolean {
  return updateSystemPath((p) => pathWithout(p, dir), run, reg);
}
