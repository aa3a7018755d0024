/**
 * Runs a TypeScript test program (the platform double, the CONNECT proxy) as its own Node process:
 * esbuild bundles it once per test process, in memory (vitest cannot run .ts in a child); each start
 * writes it to a temp file, removed once the program is listening. It runs with stdin as a pipe, so
 * it exits when this process dies however it dies (program-lifecycle.ts stops when stdin closes),
 * and `stop()` ends it with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { tempDir } from './temp-dir';

const bundles = new Map<string, Promise<Uint8Array>>();
const children = new Set<ChildProcess>();
// Belt and braces beside the stdin pipe: a test that forgets stop() still leaves nothing behind.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** The bundled program, kept in memory: each spawn writes it to a temp file removed once it runs. */
function bundle(entry: string): Promise<Uint8Array> {
  let code = bundles.get(entry);
  if (!code) {
    code = build({ entryPoints: [entry], write: false, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' })
      .then((result) => result.outputFiles[0]!.contents);
    bundles.set(entry, code);
  }
  return code;
}

export interface ChildProgram {
  /** The URL from the program's `listening on <url>` line. */
  url: string;
  child: ChildProcess;
  /** Everything the program printed so far (stdout + stderr). */
  output(): string;
  /** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

export async function startChildProgram(entry: string, args: string[], timeoutMs = 30_000): Promise<ChildProgram> {
  const dir = tempDir('localsign-program-');
  const file = join(dir, 'program.mjs');
  writeFileSync(file, await bundle(entry));
  const child = spawn(process.execPath, [file, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => {
    children.delete(child);
    resolve();
  }));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = (): void => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited before listening:\n${out}`));
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true })); // loaded by now (one ESM file)
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
