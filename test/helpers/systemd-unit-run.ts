import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The [Service] settings a test needs to start a unit as systemd would. */
export interface UnitService {
  execStart: string[];
  user: string | null;
  umask: string | null;
  environment: Record<string, string>;
}

/** systemd.syntax(7) words: double-quoted words with \" and \\, `%%` for `%`, `$$` for `$`. */
function splitExec(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const word = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!;
    words.push(word.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return words;
}

export function readUnit(path: string): UnitService {
  const lines = readFileSync(path, 'utf8').split('\n');
  const get = (key: string) => lines.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
  const environment: Record<string, string> = {};
  for (const e of get('Environment')) for (const kv of splitExec(e)) environment[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
  return { execStart: splitExec(get('ExecStart')[0] ?? ''), user: get('User')[0] ?? null, umask: get('UMask')[0] ?? null, environment };
}

export interface UnitProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * systemd is not PID 1 here: run the unit's ExecStart as the unit would, as its User= (setpriv:
 * uid, gid, supplementary groups, no_new_privs as NoNewPrivileges=), its UMask= and the
 * environment systemd gives a service (PATH, HOME/USER/LOGNAME of User=, Environment=).
 * `enter`: the words that put it in a throwaway root (scratch-root.ts), where its user exists.
 */
export function startUnit(unit: UnitService, home: string, enter: string[] = []): UnitProcess {
  const user = unit.user ?? 'root';
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: home, USER: user, LOGNAME: user, ...unit.environment };
  const command = ['setpriv', '--reuid', user, '--regid', user, '--init-groups', '--no-new-privs', '--', 'sh', '-c', `umask ${unit.umask ?? '0022'}; exec "$@"`, 'sh', ...unit.execStart];
  const [file, ...args] = [...enter, ...command];
  const child = spawn(file!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    stop: () => {
      if (child.exitCode !== null) return Promise.resolve(child.exitCode);
      child.kill('SIGTERM'); // the unit's KillSignal
      return exited;
    },
  };
}

/** Polls GET /health until it answers 200 (or the process exits). */
export async function waitForHealth(port: number, proc: UnitProcess, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the service exited with ${proc.child.exitCode}:\n${proc.output()}`);
    const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
    if (res?.status === 200) return (await res.json()) as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`/health did not answer on ${port} within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
