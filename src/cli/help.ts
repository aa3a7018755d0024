import type { ArgsDef, CommandDef } from 'citty';
import { environmentOf } from './help-environment';

/**
 * `--help`, rendered here rather than by citty's renderUsage: citty names a subcommand
 * without the program (`USAGE sign pdf`), shows the positionals we check ourselves as optional,
 * lists no environment variables and never wraps (lines of 209 columns). Here every usage line
 * starts with `localsign`, required arguments are `<NAME>` and say "(required)", the variables a
 * command reads are listed, and every line fits `width`: the terminal's, or 80 when piped.
 */

type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>);
const resolve = async <T>(v: Resolvable<T> | undefined): Promise<T | undefined> => (typeof v === 'function' ? await (v as () => T | Promise<T>)() : await v);

const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';
const heading = (text: string) => `${BOLD}${text}${RESET}`;

/** The widest label column before a description moves to the next line. */
const LABEL_MAX = 28;
/** Narrower than this and wrapping stops helping: descriptions start on their own line. */
const TEXT_MIN = 24;

/** `text` in lines of at most `width` columns, broken at spaces (a longer word stays whole). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [''];
}

/** Two columns, the second wrapped with a hanging indent; a long label puts its text below it. */
function columns(rows: [string, string][], width: number): string[] {
  const labelWidth = Math.min(LABEL_MAX, Math.max(...rows.map(([l]) => l.length)));
  const out: string[] = [];
  for (const [label, text] of rows) {
    const textAt = 2 + labelWidth + 2;
    if (width - textAt < TEXT_MIN) {
      out.push(`  ${label}`, ...wrapText(text, width - 6).map((l) => `      ${l}`));
      continue;
    }
    const wrapped = wrapText(text, width - textAt);
    if (label.length > labelWidth) out.push(`  ${label}`, ...wrapped.map((l) => `${' '.repeat(textAt)}${l}`));
    else out.push(`  ${label.padEnd(labelWidth)}  ${wrapped[0]}`, ...wrapped.slice(1).map((l) => `${' '.repeat(textAt)}${l}`));
  }
  return out;
}

type Arg = ArgsDef[string] & { alias?: string | string[]; valueHint?: string; options?: string[] };

/** `<INPUT>` for a required positional, `[INPUT]` otherwise (citty's own convention). */
const positionalName = (name: string, def: Arg) => (def.required === true ? `<${name.toUpperCase()}>` : `[${name.toUpperCase()}]`);

/** `-o, --out <out>` in OPTIONS; `short`: the first spelling only (`-o <out>`), for the usage line. */
function flagLabel(name: string, def: Arg, short = false): string {
  const aliases = (Array.isArray(def.alias) ? def.alias : def.alias ? [def.alias] : []).map((a) => (a.length === 1 ? `-${a}` : `--${a}`));
  const value = def.type === 'boolean' ? '' : def.type === 'enum' && def.options?.length ? ` <${def.options.join('|')}>` : ` <${def.valueHint ?? name.replace(/-/g, '_')}>`;
  const spellings = [...aliases, `--${name}`];
  return `${short ? spellings[0] : spellings.join(', ')}${value}`;
}

const describe = (def: Arg) => [def.description ?? '', def.required === true ? '(required)' : ''].filter(Boolean).join(' ');

/** The whole help of `cmd`, named by `path` (['localsign', 'sign', 'pdf']), for a screen `width` wide. */
export async function renderHelp(cmd: CommandDef, path: string[], width: number): Promise<string> {
  const meta = ((await resolve(cmd.meta as Resolvable<{ description?: string; version?: string }>)) ?? {}) as { description?: string; version?: string };
  const args = Object.entries(((await resolve(cmd.args as Resolvable<ArgsDef>)) ?? {}) as Record<string, Arg>);
  const subCommands = Object.entries((await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<CommandDef>>>)) ?? {});
  const name = path.join(' ');
  const positionals = args.filter(([, d]) => d.type === 'positional');
  const flags = args.filter(([, d]) => d.type !== 'positional');

  const usage = [
    name,
    ...(subCommands.length ? ['<command>'] : []),
    ...positionals.map(([n, d]) => positionalName(n, d)),
    ...flags.filter(([, d]) => d.required === true).map(([n, d]) => flagLabel(n, d, true)),
    ...(flags.some(([, d]) => d.required !== true) ? ['[options]'] : []),
  ].join(' ');

  const lines: string[] = [...wrapText(`${meta.description ?? ''}${meta.version ? ` (localsign ${meta.version})` : ''}`, width), ''];
  lines.push(heading('USAGE'), ...wrapText(usage, width - 2).map((l, i) => (i === 0 ? `  ${l}` : `      ${l}`)), '');
  if (positionals.length) lines.push(heading('ARGUMENTS'), ...columns(positionals.map(([n, d]) => [positionalName(n, d), describe(d)]), width), '');
  if (flags.length) lines.push(heading('OPTIONS'), ...columns([...flags.map(([n, d]): [string, string] => [flagLabel(n, d), describe(d)]), ['-h, --help', 'Show this help']], width), '');
  if (subCommands.length) {
    const rows: [string, string][] = [];
    for (const [sub, def] of subCommands) {
      const subMeta = (await resolve(((await resolve(def)) as CommandDef).meta as Resolvable<{ description?: string; hidden?: boolean }>)) ?? {};
      if (!(subMeta as { hidden?: boolean }).hidden) rows.push([sub, (subMeta as { description?: string }).description ?? '']);
    }
    lines.push(heading('COMMANDS'), ...columns(rows, width), '', ...wrapText(`\`${name} <command> --help\` describes a command.`, width), '');
  }
  const environment = environmentOf(path.slice(1).join(' '));
  if (environment.length) lines.push(heading('ENVIRONMENT'), ...columns(environment, width), '');
  return lines.join('\n').replace(/\n+$/, '');
}

/** The width help is wrapped to: the terminal's columns, else 80 (a pipe, a file, a pager). */
export function helpWidth(stream: NodeJS.WritableStream): number {
  const columnsOf = (stream as NodeJS.WriteStream).isTTY ? (stream as NodeJS.WriteStream).columns : undefined;
  return columnsOf && columnsOf >= 40 ? columnsOf : 80;
}
