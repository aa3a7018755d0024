import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE, runCli } from '../../helpers/cli';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure } from './_cli-expect';

/**
 * Issue 19, CLI polish: `--help` of every command as users read it, from the built bundle. Piped it
 * fits 80 columns; on a terminal its width; every usage line starts with `localsign`; required
 * arguments are shown and checked as required; the environment variables each command reads are
 * listed, held against config/env.ts and docs/operators.md.
 */
const ROOT = resolve(__dirname, '../../..');
const tmp = makeTmpHome();
afterAll(() => tmp.cleanup());
const pages = new Map<string, string>();
const help = (args: string[]) => {
  const key = args.join(' ');
  if (!pages.has(key)) {
    const r = runCli([...args, '--help'], { home: tmp.home });
    expect(r.status, r.stderr).toBe(0);
    pages.set(key, r.stdout);
  }
  return pages.get(key)!;
};

/** Every command path, from the top help's COMMANDS and each one's own. */
function commandPaths(): string[][] {
  const out: string[][] = [];
  const walk = (path: string[]) => {
    out.push(path);
    const text = help(path);
    const section = text.split(/^COMMANDS$/m)[1];
    if (!section) return;
    for (const m of section.split(/\n\n/)[0]!.matchAll(/^ {2}(\S+)/gm)) walk([...path, m[1]!]);
  };
  walk([]);
  return out;
}

describe('help', () => {
  const paths = commandPaths();

  it('finds every command (the tree is walked from the help itself)', () => {
    expect(paths.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['', 'serve', 'sign', 'sign pdf', 'sign hash', 'service', 'service install', 'design:preview', 'credentials']));
    expect(paths.length).toBeGreaterThan(25);
  });

  it('piped: no line is wider than 80 columns, and each usage line names the program', () => {
    for (const path of paths) {
      const text = help(path);
      const wide = text.split('\n').filter((l) => l.length > 80);
      expect(wide, `localsign ${path.join(' ')} --help`).toEqual([]);
      const usage = text.split(/^USAGE$/m)[1]!.trimStart();
      expect(usage.startsWith(['localsign', ...path].join(' ')), usage.split('\n')[0]).toBe(true);
    }
  });

  it('on a terminal: wrapped to its width (120 columns here), not to 80', () => {
    const r = spawnSync('script', ['-qec', `stty cols 120 rows 40; ${process.execPath} ${BUNDLE} serve --help`, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', LOCALSIGN_HOME: tmp.home } });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split(/\r?\n/);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(120);
    expect(Math.max(...lines.map((l) => l.length))).toBeGreaterThan(80);
  });

  it('required arguments: <NAME> and "(required)" in help; missing, one line naming it and exit 2', () => {
    const signPdf = help(['sign', 'pdf']);
    expect(signPdf).toMatch(/^ {2}localsign sign pdf <INPUT> -o <out> --credential <credential> \[options\]$/m);
    expect(signPdf).toMatch(/^ {2}<INPUT> +The PDF to sign \(required\)$/m);
    expect(help(['sign', 'hash'])).toMatch(/^ {2}localsign sign hash <HASH> --credential <credential> \[options\]$/m);
    expect(help(['verify'])).toMatch(/^ {2}localsign verify <FILE> \[options\]$/m);
    expect(help(['wrapper:revoke'])).toMatch(/^ {2}localsign wrapper:revoke <KEY> \[options\]$/m);
    expect(expectOneLineFailure(runCli(['sign', 'hash', '--credential', 'x'], { home: tmp.home }), 2)).toBe(
      'missing <HASH> for sign hash: The 32-byte hash: 64 hex digits, with or without 0x (see `localsign sign hash --help`)',
    );
    expect(expectOneLineFailure(runCli(['sign', 'hash', '0x00'], { home: tmp.home }), 2)).toBe(
      'missing --credential for sign hash: credential_key of an evm credential (`localsign credentials`) (see `localsign sign hash --help`)',
    );
    // A flag's value is not taken for the positional; `--` ends the flags.
    expect(expectOneLineFailure(runCli(['design:preview', '-o', 'x.png'], { home: tmp.home }), 2)).toMatch(/^missing <KEY> for design:preview/);
    expect(expectOneLineFailure(runCli(['wrapper:revoke', '--home', tmp.home], { home: tmp.home }), 2)).toMatch(/^missing <KEY> for wrapper:revoke/);
  });

  it('every variable config/env.ts reads is listed by `localsign --help`', () => {
    const source = readFileSync(resolve(ROOT, 'src/config/env.ts'), 'utf8');
    const read = new Set([...source.matchAll(/env\.([A-Z][A-Z_]+)\b/g)].map((m) => m[1]!));
    // Not settings: where the OS keeps homes and data, and the test build's switch.
    for (const os of ['HOME', 'USERPROFILE', 'SystemRoot', 'SYSTEMROOT', 'WINDIR', 'PROGRAMDATA', 'ALLUSERSPROFILE', 'NODE_OPTIONS', 'LOCALSIGN_TEST_FAULT']) read.delete(os);
    expect(read.size).toBeGreaterThan(25);
    const top = help([]).split(/^ENVIRONMENT$/m)[1]!;
    for (const name of read) expect(top, name).toMatch(new RegExp(`^ {2}${name}( |$)`, 'm'));
  });

  it('every variable operators.md gives a `serve` setting is listed by `serve --help`', () => {
    const operators = readFileSync(resolve(ROOT, 'docs/operators.md'), 'utf8');
    const table = operators.split('\n').filter((l) => /^\| `--/.test(l));
    const names = new Set(table.flatMap((l) => [...l.matchAll(/`(LOCALSIGN_[A-Z_]+)`/g)].map((m) => m[1]!)));
    expect(names.size).toBeGreaterThan(15);
    const serve = help(['serve']).split(/^ENVIRONMENT$/m)[1]!;
    for (const name of [...names, 'HTTPS_PROXY', 'NO_PROXY', 'LOCALSIGN_HOME']) expect(serve, name).toMatch(new RegExp(`^ {2}${name}( |$)`, 'm'));
  });
});
