import { createConsola, type ConsolaInstance, type ConsolaReporter, type LogObject } from 'consola';
import type { RotatingFile } from './rotating-file';

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
      const line = text.split('\n')[0] ?? '';
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

export function createLogger(options: {
  stderr?: NodeJS.WritableStream;
  file?: RotatingFile | null;
  now?: () => Date;
  quiet?: boolean;
}): Logger {
  const stderr = options.stderr ?? process.stderr;
  const color = Boolean((stderr as NodeJS.WriteStream).isTTY) && !process.env.NO_COLOR;
  const consola = createConsola({
    level: options.quiet ? 1 : 3,
    reporters: [oneLineReporter(stderr, color)],
  });
  const now = options.now ?? (() => new Date());
  const toFile = (level: string, message: string) =>
    options.file?.append(`${now().toISOString()} ${level} ${message.replace(/\n/g, ' ')}\n`);
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
