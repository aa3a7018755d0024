import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The built bundle, the release build: CLI tests run what users run (`npm test` builds it first). */
export const BUNDLE = resolve(__dirname, '../../dist/localsign.cjs');
/**
 * The test build (`npm run build:test`, which `npm test` runs): the release bundle with its
 * `TEST_FAULT:` blocks kept, for the tests that make the service kill itself, and only for them.
 */
export const TEST_BUNDLE = resolve(__dirname, '../../dist-test/localsign.cjs');

export function assertBundle(): void {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` (npm test does)`);
}

/**
 * The tests that provoke a crash need the test build: the release bundle drops LOCALSIGN_TEST_FAULT
 * (build/bundle.mjs), and without it they would wait for a death that never comes. The bundle is a
 * launcher, so the build's own record says which build it is.
 */
export function assertTestBuild(): void {
  const info = resolve(TEST_BUNDLE, '../build-info.json');
  const build = existsSync(info) ? (JSON.parse(readFileSync(info, 'utf8')) as { build?: string }).build : undefined;
  if (!existsSync(TEST_BUNDLE) || build !== 'test') {
    throw new Error(`${TEST_BUNDLE} is missing or not the test build: run \`npm run build:test\` (npm test does)`);
  }
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/localsign.cjs …` with its own config dir; stdin is not a TTY. */
export function runCli(args: string[], o: { home: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): CliResult {
  assertBundle();
  const r = spawnSync(process.execPath, [BUNDLE, ...args], {
    env: { ...process.env, LOCALSIGN_HOME: o.home, NO_COLOR: '1', ...o.env },
    input: o.input ?? '',
    encoding: 'utf8',
    timeout: o.timeoutMs ?? 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Same, without blocking the test's event loop (needed while a service runs in-process). */
export function runCliAsync(args: string[], o: { home: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  assertBundle();
  return new Promise((resolveResult, reject) => {
    const child = spawn(process.execPath, [BUNDLE, ...args], {
      env: { ...process.env, LOCALSIGN_HOME: o.home, NO_COLOR: '1', ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolveResult({ status, stdout, stderr }));
  });
}

export function parseJson<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`expected JSON on stdout, got status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  }
}
