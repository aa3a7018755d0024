// consola's core: the instance and its levels, without the default instance, the fancy reporters
// and the environment detection its main entry sets up at import (15 ms of the service's start,
// measured on a 2-core machine).
import { createConsola, type ConsolaInstance, type ConsolaReporter, type LogObject } from 'consola/core';
import { escapeControls } from './escape';

const RED = '\u001b[31m';
const YELLOW = '\u001b[33m';
const RESET = '\u001b[0m';

/**
 * consola's fancy/basic reporters print stacks and cause chains (formatError); spec §7 says the
 * console shows one red line and never a traceback, so this reporter prints only the message.
 */
function oneLineReporter(stream: NodeJS.WritableStream, color: boolean): ConsolaReporter {
  return {
    log(obj: LogObject) {
      const first = obj.args[0];
      const text = first instanceof Error ? first.message : obj.args.map(String).join(' ');
      // Request text (a path, a field) reaches log messages: escaped, it cannot colour or move
      // the terminal, nor make one line look like two (escape.ts); a line break shows as \x0a,
      // so the line stays one line and keeps what followed the break.
      const line = escapeControls(text);
      const paint = !color ? '' : obj.level <= 0 ? RED : obj.level === 1 ? YELLOW : '';
      stream.write(paint ? `${paint}${line}${RESET}\n` : `${line}\n`);
    },
  };
}

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  /** The consola instance (CLI output shares its stream settings). */
  readonly console: ConsolaInstance;
}

/** Where log lines also go (service.log, a rotating file owned by the store). */
export interface LogSink {
  append(text: string): void;
}

export function createLogger(options: {
  stderr?: NodeJS.WritableStream;
  file?: LogSink | null;
  now?: () => Date;
  quiet?: boolean;
  /** NO_COLOR (https://no-color.org), read by config/env.ts; colour also needs a terminal. */
  noColor?: boolean;
}): Logger {
  const stderr = options.stderr ?? process.stderr;
  const color = Boolean((stderr as NodeJS.WriteStream).isTTY) && !options.noColor;
  const consola = createConsola({
    level: options.quiet ? 1 : 3,
    reporters: [oneLineReporter(stderr, color)],
  });
  const now = options.now ?? (() => new Date());
  // A full or read-only disk must not turn a log line into a failed request: the
  // console still has every line, and says once when service.log stops and starts again.
  let fileDown = false;
  const toFile = (level: string, message: string) => {
    try {
      options.file?.append(`${now().toISOString()} ${level} ${escapeControls(message)}\n`);
      if (fileDown) consola.warn('service.log is written again');
      fileDown = false;
    } catch (error) {
      if (!fileDown) consola.warn(`service.log cannot be written (${error instanceof Error ? error.message : String(error)}); lines go to the console only until it can`);
      fileDown = true;
    }
  };
  return {
    console: consola,
    error(message) {
      toFile('ERROR', message);
      consola.error(message);
    },
    warn(message) {
      toFile('WARN', message);
      consola.warn(message);
    },
    info(message) {
      toFile('INFO', message);
      consola.info(message);
    },
  };
}
