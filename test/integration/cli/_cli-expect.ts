import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BUNDLE, type CliResult } from '../../helpers/cli';

/**
 * CONTRACT "Command line": a failure exits non-zero with ONE line on stderr and never a traceback.
 * Returns that line so the caller can assert what it says.
 */
export function expectOneLineFailure(r: CliResult, status = 1): string {
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect({ status: r.status, lines }).toEqual({ status, lines: [expect.any(String)] });
  expect(r.stderr).not.toMatch(/^\s{2,}at /m);
  expect(r.stderr).not.toContain('\u001b['); // NO_COLOR and stderr is a pipe: no escape codes
  return lines[0]!;
}

/** Every entry under `dir` with its permission bits, relative names, sorted. */
export function walkModes(dir: string, prefix = ''): { path: string; dir: boolean; file: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; file: boolean; mode: number }[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const st = statSync(full);
    out.push({ path: prefix + name, dir: st.isDirectory(), file: st.isFile(), mode: st.mode & 0o777 });
    if (st.isDirectory()) out.push(...walkModes(full, `${prefix}${name}/`));
  }
  return out;
}

/** Names of the regular files under `dir` whose bytes contain `needle` (the service's lock socket is skipped). */
export function filesContaining(dir: string, needle: string): string[] {
  return walkModes(dir)
    .filter((e) => e.file && readFileSync(join(dir, e.path)).includes(needle))
    .map((e) => e.path);
}

/**
 * Runs the bundle on a pseudo-terminal (util-linux `script`), so stdin IS a TTY, and types
 * `answer` once the `[y/N]` prompt shows. Returns everything the terminal showed and the exit code.
 */
export function runOnTty(args: string[], o: { home: string; answer: string; env?: NodeJS.ProcessEnv }): Promise<{ status: number | null; screen: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, BUNDLE, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, LOCALSIGN_HOME: o.home, NO_COLOR: '1', ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let answered = false;
    const onData = (d: Buffer) => {
      screen += d.toString('utf8');
      if (!answered && screen.includes('[y/N]')) {
        answered = true;
        child.stdin.write(`${o.answer}\n`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject); // `script` missing: the test fails, never skips
    child.on('close', (status) => resolve({ status, screen }));
  });
}
