import { LocalsignAnswerError, LocalsignApiError, LocalsignConnectionError, LocalsignServiceProofError } from '../../clients/typescript/src/index';
import { readEnv } from '../config/env';
import { isLocalsignError } from '../domain/errors';
import { escapeControls, escapeJsonText } from '../log/escape';

const RED = '\u001b[31m';
const RESET = '\u001b[0m';
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Exit codes, so a script can tell what failed (docs/operators.md "Exit codes"): 1 for a
 * failure on this machine (config dir, files, chip), 2 for a usage error; the commands that call
 * the service add 3 (not reachable, or what answers at its address did not prove it is the service
 * that holds the key), 4 (it refused the request: key, input, pairing), 5 (the signing failed: the
 * request ended ERROR, the platform failed, or the result did not match the credential), 6 (gave
 * up waiting).
 */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;
export const EXIT_REFUSED = 4;
export const EXIT_SIGNING_FAILED = 5;
export const EXIT_TIMEOUT = 6;

export class UsageError extends Error {}

/** A failure with its own exit code (a request that ended ERROR, a wait that gave up). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** An answer of the service as one line: its message, status and error id, and what to do about a 401. */
function describeApiError(e: LocalsignApiError): string {
  const hint = e.status === 401 ? '; check LOCALSIGN_KEY and LOCALSIGN_SECRET (or --key/--secret-file)' : '';
  return `${e.message} (HTTP ${e.status}${e.error_id ? `, ${e.error_id}` : ''})${hint}`;
}

function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT_USAGE;
  if (error instanceof CommandError) return error.exitCode;
  // Something answered, but not the service that holds this key: for a script, the service is not there.
  if (error instanceof LocalsignConnectionError || error instanceof LocalsignServiceProofError) return EXIT_UNREACHABLE;
  if (error instanceof LocalsignAnswerError) return EXIT_SIGNING_FAILED;
  if (error instanceof LocalsignApiError) return error.status >= 500 ? EXIT_SIGNING_FAILED : EXIT_REFUSED;
  // citty's own errors (E_NO_COMMAND…) are usage errors too.
  if (error instanceof Error && /^E_[A-Z_]+$/.test(String((error as { code?: unknown }).code))) return EXIT_USAGE;
  return EXIT_FAILURE;
}

/**
 * The only place a CLI failure becomes output (STYLE §3.2): one red line on stderr (red only on
 * a terminal), never a traceback (CONTRACT "Command line"), then the exit code.
 */
export function failLine(error: unknown, stderr: NodeJS.WritableStream = process.stderr): number {
  const message =
    error instanceof LocalsignApiError
      ? describeApiError(error)
      : isLocalsignError(error) || error instanceof UsageError || error instanceof CommandError || error instanceof LocalsignConnectionError || error instanceof LocalsignServiceProofError || error instanceof LocalsignAnswerError
        ? error.message
        : error instanceof Error && (error as { code?: string }).code?.startsWith('E')
          ? error.message // citty's CLIError: usage problems
          : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  // A message can quote a document, a platform answer or a file name: shown escaped like the
  // logs (log/escape.ts), it cannot move the cursor or reorder the line.
  const line = escapeControls(message.split('\n')[0]!.replace(ANSI, ''));
  const color = Boolean((stderr as NodeJS.WriteStream).isTTY) && !readEnv().noColor;
  stderr.write(color ? `${RED}${line}${RESET}\n` : `${line}\n`);
  return exitCodeOf(error);
}

/** `text` as is on a terminal without NO_COLOR; without its ANSI colours anywhere else (a pipe, a file). */
export function paint(text: string, stream: NodeJS.WritableStream, noColor: boolean): string {
  return Boolean((stream as NodeJS.WriteStream).isTTY) && !noColor ? text : text.replace(ANSI, '');
}

/**
 * Prints data: JSON with --json, else the human rendering. JSON.stringify escapes C0 controls but
 * writes DEL, C1 controls (U+009B is a one-byte CSI to some terminals), U+2028/U+2029 and the bidi
 * controls raw; those are escaped as \uNNNN too, which is the same JSON value for any parser, so
 * `--json` on a terminal is as safe as the human lines. The human renderings escape the
 * text they take from documents and platforms themselves (escapeControls).
 */
export function printData(json: boolean, data: unknown, human: () => string): void {
  process.stdout.write(json ? escapeJsonText(JSON.stringify(data, null, 2)) + '\n' : human() + '\n');
}

/**
 * Warnings of a result (a stamp moved, a stamp line cut to fit), one line each on stderr
 * whatever the output: the signed PDF may be on stdout (`-o -`) and --json's data too. A warning
 * can quote a signer's name: escaped like the logs, it cannot move the cursor.
 */
export function printWarnings(warnings: readonly string[], stderr: NodeJS.WritableStream = process.stderr): void {
  for (const w of warnings) stderr.write(`warning: ${escapeControls(w)}\n`);
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
