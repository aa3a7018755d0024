/**
 * Running the Windows executable under wine for `npm run test:windows` (issue 7 §1).
 * - A prefix of its own in a temp dir, set to Windows 10, removed afterwards (wineserver -k).
 * - WINEDEBUG=-all; mono and gecko disabled (no installer dialog; nothing here needs them).
 * - No DISPLAY: nothing may need a window (wine logs that it has no display driver and goes on).
 * - stdout and stderr go to files, never pipes: pipes from a wine process lose output.
 * - A console program under wine gets SIGINT as CTRL_C_EVENT, which Node reports as 'SIGINT';
 *   SIGTERM kills the process without any handler running, so stopping uses SIGINT.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WinePrefix {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** C:\… as this machine sees it (the prefix maps C: to drive_c). */
  toUnix(windowsPath: string): string;
  cleanup(): void;
}

export interface WineRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface WineProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** stdout then stderr, as written so far. */
  output(): string;
}

/** Fails (never skips) when wine is missing, saying what to install. */
export function assertWine(): void {
  try {
    execFileSync('wine', ['--version'], { stdio: 'ignore', env: { ...process.env, WINEDEBUG: '-all' } });
  } catch {
    throw new Error('wine is not installed: the Windows smoke test needs it (apt-get install --no-install-recommends wine wine64); it never skips');
  }
}

let runs = 0;

/** Starts `wine …args` with its output in two files of the prefix. */
export function startWine(prefix: WinePrefix, args: string[], env: NodeJS.ProcessEnv = {}): WineProcess {
  runs += 1;
  const outPath = join(prefix.dir, `run-${runs}.out`);
  const errPath = join(prefix.dir, `run-${runs}.err`);
  const out = openSync(outPath, 'w');
  const err = openSync(errPath, 'w');
  const child = spawn('wine', args, { env: { ...prefix.env, ...env }, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stdout = () => readFileSync(outPath, 'utf8');
  const stderr = () => readFileSync(errPath, 'utf8');
  return { child, exited, stdout, stderr, output: () => stdout() + stderr() };
}

/** Runs `wine …args` to the end (killed after `timeoutMs`). */
export async function runWine(prefix: WinePrefix, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<WineRun> {
  const proc = startWine(prefix, args, env);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** A new prefix reporting Windows 10 (what `winecfg -v win10` sets, without starting winecfg). */
export async function createPrefix(): Promise<WinePrefix> {
  const dir = mkdtempSync(join(tmpdir(), 'localsign-wine-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(DISPLAY|WAYLAND_DISPLAY|LOCALSIGN_.*|WINE.*)$/.test(k)) env[k] = v;
  }
  Object.assign(env, { WINEPREFIX: join(dir, 'prefix'), WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=', NO_COLOR: '1' });
  const prefix: WinePrefix = {
    dir,
    env,
    toUnix: (p) => join(dir, 'prefix', 'drive_c', ...p.replace(/^C:\\/i, '').split('\\')),
    cleanup: () => {
      try {
        execFileSync('wineserver', ['-k'], { env, stdio: 'ignore' });
      } catch {
        /* no wineserver left running */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const reg = await runWine(prefix, ['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f']);
  if (reg.code !== 0) throw new Error(`could not set up the wine prefix: ${reg.stdout}${reg.stderr}`);
  return prefix;
}

/** A port nothing listens on at the moment. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Where both Windows installers put the program and its data, and the system environment's key (PATH). */
export const INSTDIR = 'C:\\Program Files\\localsign';
export const DATA = 'C:\\ProgramData\\localsign';
export const ENV_KEY = 'HKLM\\System\\CurrentControlSet\\Control\\Session Manager\\Environment';

/**
 * What both installer tests ask of an installed localsign: a file of its data dir, its executable
 * run from where the installer put it, `/health` on its port (null until it answers 200), the
 * service's SCM state, and the system PATH. The prefix and port are read when asked (beforeAll sets them).
 */
export function installedLocalsign(prefix: () => WinePrefix, port: () => number) {
  return {
    data: (name: string) => prefix().toUnix(`${DATA}\\${name}`),
    exe: (args: string[]) => runWine(prefix(), [`${INSTDIR}\\localsign.exe`, ...args]),
    health: async (): Promise<Record<string, unknown> | null> => {
      const res = await fetch(`http://127.0.0.1:${port()}/health`).catch(() => null);
      return res?.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
    },
    scState: async () => /STATE\s*:\s*\d+\s+(\w+)/.exec((await runWine(prefix(), ['sc', 'query', 'localsign'])).stdout)?.[1] ?? null,
    systemPath: async () => /Path\s+REG_\w+\s+(.*)/.exec((await runWine(prefix(), ['reg', 'query', ENV_KEY, '/v', 'Path'])).stdout)?.[1]?.trim() ?? '',
  };
}

/** `probe` until it gives a value, every 250 ms, failing after `timeoutMs` with `what`. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
