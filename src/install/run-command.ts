import { spawnSync } from 'node:child_process';
import { ConfigurationError } from '../domain/errors';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an OS tool (systemctl, launchctl, sc, useradd); tests pass their own to record the calls. */
export type Runner = (command: string, args: readonly string[]) => CommandResult;

export const runCommand: Runner = (command, args) => {
  const r = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, windowsHide: true });
  if (r.error) return { code: null, stdout: '', stderr: (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${command}: command not found` : r.error.message };
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** Runs and throws one line naming the command and what it said. */
export function runChecked(run: Runner, command: string, args: readonly string[]): CommandResult {
  const r = run(command, args);
  if (r.code !== 0) {
    const said = (r.stderr || r.stdout).trim().split('\n')[0] ?? '';
    throw new ConfigurationError(`${command} ${args.join(' ')} failed${r.code === null ? '' : ` (exit ${r.code})`}: ${said}`);
  }
  return r;
}
