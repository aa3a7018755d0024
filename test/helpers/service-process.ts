import { spawn, type ChildProcess } from 'node:child_process';
import { assertBundle, BUNDLE, parseJson, runCli } from './cli';

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the service printed so far (stdout + stderr). */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `localsign serve` on a random port and waits for its "listening on" line. */
export async function startServiceProcess(o: { home: string; args?: string[]; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ServiceProcess> {
  assertBundle();
  const child = spawn(process.execPath, [BUNDLE, 'serve', '--port', '0', ...(o.args ?? [])], {
    env: { ...process.env, LOCALSIGN_HOME: o.home, NO_COLOR: '1', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start within ${o.timeoutMs ?? 15000} ms:\n${out}`)), o.timeoutMs ?? 15_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** init --embedded + a wrapper: the usual starting point of an API test. */
export function initEmbeddedWithWrapper(home: string, wrapperArgs: string[] = []): { key: string; secret: string } {
  const init = runCli(['init', '--embedded', '--json'], { home });
  if (init.status !== 0) throw new Error(`init failed: ${init.stderr}`);
  return parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', ...wrapperArgs], { home }));
}

/** fetch with the wrapper headers. */
export function authed(base: string, creds: { key: string; secret: string }) {
  return (path: string, init: RequestInit = {}) =>
    fetch(base + path, {
      ...init,
      headers: { 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
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
