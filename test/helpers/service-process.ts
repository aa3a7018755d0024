import { spawn, type ChildProcess } from 'node:child_process';
import { assertBundle, BUNDLE, parseJson, runCli, TEST_BUNDLE } from './cli';

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the service printed so far (stdout + stderr). */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

interface ServeOptions {
  home: string;
  /** What runs `serve`: default the bundle on this Node; the single executable, or a copied bundle. */
  command?: string[];
  args?: string[];
  /** The port to ask for; default 0 (any free port). */
  port?: number;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Spawns `localsign serve --port 0` (or `o.port`), collecting what it prints (stdout + stderr). */
function spawnServe(o: ServeOptions): { child: ChildProcess; output: () => string } {
  if (!o.command) assertBundle();
  // The release bundle, as users run it; the test build only where a test asks for a crash.
  const [file, ...before] = o.command ?? [process.execPath, o.env?.LOCALSIGN_TEST_FAULT ? TEST_BUNDLE : BUNDLE];
  const child = spawn(file!, [...before, 'serve', '--port', String(o.port ?? 0), ...(o.args ?? [])], {
    env: { ...process.env, LOCALSIGN_HOME: o.home, NO_COLOR: '1', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

/** Starts `localsign serve` on a random port and waits for its "listening on" line. */
export async function startServiceProcess(o: ServeOptions): Promise<ServiceProcess> {
  const { child, output } = spawnServe(o);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start within ${o.timeoutMs ?? 15000} ms:\n${output()}`)), o.timeoutMs ?? 15_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(output());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output()}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs `localsign serve --port 0` until the process exits on its own (a start expected to die,
 * before or after it listens); fails when it is still running after `timeoutMs`.
 */
export async function serveUntilExit(o: ServeOptions): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  const { child, output } = spawnServe(o);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service still running after ${o.timeoutMs ?? 30_000} ms:\n${output()}`));
    }, o.timeoutMs ?? 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output: output() });
    });
  });
}

/** init --embedded + a wrapper: the usual starting point of an API test. */
export function initEmbeddedWithWrapper(home: string, wrapperArgs: string[] = []): { key: string; secret: string } {
  const init = runCli(['init', '--embedded', '--json'], { home });
  if (init.status !== 0) throw new Error(`init failed: ${init.stderr}`);
  return parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', ...wrapperArgs], { home }));
}

/**
 * A caller with a wrapper key. Each call has its own connection (`Connection: close`): tests run
 * the CLI with spawnSync, which stalls this process's event loop for seconds, and a kept-alive
 * socket the service closed meanwhile (its 5 s keepAliveTimeout) was then picked for the next
 * call before undici's own timer could retire it ("other side closed"). A client whose loop runs
 * never meets this; a test must not depend on how long a CLI command takes.
 */
export function authed(base: string, creds: { key: string; secret: string }) {
  return (path: string, init: RequestInit = {}) =>
    fetch(base + path, {
      ...init,
      headers: { connection: 'close', 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
    });
}

/** Polls a request until it leaves PENDING. */
export async function waitForResult(call: ReturnType<typeof authed>, requestId: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(`/v1/results/${requestId}`);
    const body = (await res.json()) as Record<string, unknown>;
    if (body.status !== 'PENDING') return body;
    if (Date.now() > deadline) throw new Error(`request ${requestId} still PENDING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A port nothing listens on: bind 0, read it, close. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
