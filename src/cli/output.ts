import { isLocalsignError } from '../errors/errors';

const RED = '\u001b[31m';
const RESET = '\u001b[0m';

/** Exit codes: 1 for every failure the operator can act on; 2 for a usage error. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

/**
 * The only place a CLI failure becomes output (STYLE §3.2): one red line on stderr, never a
 * traceback (CONTRACT "Command line"), then the exit code.
 */
export function failLine(error: unknown, stderr: NodeJS.WritableStream = process.stderr): number {
  const message = isLocalsignError(error) || error instanceof UsageError
    ? error.message
    : error instanceof Error && (error as { code?: string }).code?.startsWith('E')
      ? error.message // citty's CLIError: usage problems
      : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  const line = message.split('\n')[0]!.replace(/\u001b\[[0-9;]*m/g, '');
  const color = Boolean((stderr as NodeJS.WriteStream).isTTY) && !process.env.NO_COLOR;
  stderr.write(color ? `${RED}${line}${RESET}\n` : `${line}\n`);
  return error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE;
}

/** Prints data: JSON with --json, else the human rendering. */
export function printData(json: boolean, data: unknown, human: () => string): void {
  process.stdout.write(json ? JSON.stringify(data, null, 2) + '\n' : human() + '\n');
}

/** Every occurrence of a repeatable string flag (`--credential A --credential B`). */
export function repeatedFlag(rawArgs: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i += 1) {
    const a = rawArgs[i]!;
    if (a === `--${name}` && i + 1 < rawArgs.length) out.push(rawArgs[++i]!);
    else if (a.startsWith(`--${name}=`)) out.push(a.slice(name.length + 3));
  }
  return out;
}
