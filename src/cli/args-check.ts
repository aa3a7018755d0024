import type { ArgsDef, CommandDef } from 'citty';
import { UsageError } from './output';

/**
 * citty ignores flags a command does not declare, so `status --prot 18400` checked port 8300 and
 * `wrapper:create --nmae foo` created a key named "default". Here the command line is
 * walked down the command tree the way citty walks it, and every flag must be one the command
 * declares (kebab or camelCase, `--no-` for a boolean, or an alias); anything else is a usage
 * error (exit 2) naming the flag and, when one is close, the flag meant.
 */

type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>);
const resolve = async <T>(v: Resolvable<T> | undefined): Promise<T | undefined> => (typeof v === 'function' ? await (v as () => T | Promise<T>)() : await v);

const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const aliasesOf = (def: ArgsDef[string]) => {
  const a = (def as { alias?: string | string[] }).alias;
  return Array.isArray(a) ? a : a ? [a] : [];
};

/** Flags every command takes (run.ts answers them before any command runs). */
const GLOBAL_FLAGS = new Set(['help', 'h']);

function findDef(args: ArgsDef, name: string): ArgsDef[string] | undefined {
  for (const [key, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    if (camel(key) === camel(name) || aliasesOf(def).includes(name)) return def;
  }
  return undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

function unknownFlag(flag: string, args: ArgsDef, command: string): UsageError {
  const names = Object.entries(args).filter(([, d]) => d.type !== 'positional').map(([k]) => k);
  const near = names.map((n) => ({ n, d: distance(flag.replace(/^-+/, ''), n) })).sort((a, b) => a.d - b.d)[0];
  const hint = near && near.d <= 2 ? `; did you mean --${near.n}?` : '';
  return new UsageError(`unknown flag ${flag.split('=')[0]} for ${command}${hint} (see \`localsign ${command} --help\`)`);
}

/**
 * Checks the flags in `tokens` against `args`; returns the index of the first positional (the
 * subcommand's name where there are subcommands), or -1.
 */
function checkLevel(tokens: string[], args: ArgsDef, command: string, stopAtPositional: boolean): number {
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i]!;
    if (t === '--') return -1;
    if (!t.startsWith('-') || t === '-') {
      if (stopAtPositional) return i;
      continue;
    }
    const long = t.startsWith('--');
    const name = (long ? t.slice(2) : t.slice(1)).split('=')[0]!;
    if (GLOBAL_FLAGS.has(name)) continue;
    let def = findDef(args, name);
    if (!def && long && name.startsWith('no-')) {
      const negated = findDef(args, name.slice(3));
      if (negated?.type === 'boolean') def = negated;
    }
    if (!def) throw unknownFlag(t, args, command);
    if ((def.type === 'string' || def.type === 'enum') && !t.includes('=')) i += 1;
  }
  return -1;
}

/**
 * Each argument the command declares `required` is given (its help shows it as `<NAME>` and
 * "(required)", help.ts). Checked here, before citty, so the line names the command and its help
 * the way an unknown flag's does, and exits 2.
 */
function checkRequired(tokens: string[], args: ArgsDef, command: string): void {
  const end = tokens.indexOf('--');
  const given = end < 0 ? tokens : tokens.slice(0, end);
  const after = end < 0 ? [] : tokens.slice(end + 1);
  let positionals = [...positionalTokens(given, args), ...after].length;
  for (const [key, def] of Object.entries(args)) {
    if (def.required !== true || def.default !== undefined) continue;
    const help = def.description ? `: ${def.description.replace(/[.]$/, '')}` : '';
    if (def.type === 'positional') {
      if (positionals > 0) positionals -= 1;
      else throw new UsageError(`missing <${key.toUpperCase()}> for ${command}${help} (see \`localsign ${command} --help\`)`);
      continue;
    }
    const spellings = [`--${key}`, ...aliasesOf(def).map((a) => (a.length === 1 ? `-${a}` : `--${a}`))];
    const present = given.some((t) => spellings.some((s) => t === s || t.startsWith(`${s}=`)));
    if (!present) throw new UsageError(`missing ${spellings.reverse().join('/')} for ${command}${help} (see \`localsign ${command} --help\`)`);
  }
}

/** The tokens that are positionals: not flags, and not the value a string flag takes. */
function positionalTokens(tokens: string[], args: ArgsDef): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i]!;
    if (!t.startsWith('-') || t === '-') {
      out.push(t);
      continue;
    }
    const name = (t.startsWith('--') ? t.slice(2) : t.slice(1)).split('=')[0]!;
    const def = findDef(args, name);
    if (def && (def.type === 'string' || def.type === 'enum') && !t.includes('=')) i += 1;
  }
  return out;
}

/** The command `rawArgs` names (walking subcommands) after checking every flag on the way. */
export async function checkCommandLine(root: CommandDef, rawArgs: string[]): Promise<void> {
  let cmd = root;
  let tokens = rawArgs;
  const path: string[] = [];
  for (;;) {
    const args = ((await resolve(cmd.args as Resolvable<ArgsDef>)) ?? {}) as ArgsDef;
    const subCommands = (await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<CommandDef>>>)) ?? {};
    const hasSubs = Object.keys(subCommands).length > 0;
    const name = path.join(' ') || 'localsign';
    const at = checkLevel(tokens, args, name, hasSubs);
    if (!hasSubs) return checkRequired(tokens, args, name);
    if (at < 0) return; // citty answers "No command specified" or runs the default
    const sub = tokens[at]!;
    const next = subCommands[sub];
    if (!next) throw new UsageError(`unknown command ${[...path, sub].join(' ')} (see \`localsign ${path.length ? `${path.join(' ')} ` : ''}--help\`)`);
    cmd = (await resolve(next))!;
    path.push(sub);
    tokens = tokens.slice(at + 1);
  }
}

/** The command that `--help` describes and its path from `localsign`: the names in `rawArgs`, flags skipped. */
export async function commandForHelp(root: CommandDef, rawArgs: string[]): Promise<[CommandDef, string[]]> {
  let cmd = root;
  const path = ['localsign'];
  for (const token of rawArgs.filter((a) => !a.startsWith('-'))) {
    const subCommands = (await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<CommandDef>>>)) ?? {};
    const next = subCommands[token];
    if (!next) break;
    path.push(token);
    cmd = (await resolve(next))!;
  }
  return [cmd, path];
}
