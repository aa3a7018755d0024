/**
 * A running service's PDF worker processes seen from outside (issue 31): which they are (the
 * service's children, from /proc), the environment they were started with (/proc/PID/environ, as
 * any process of the same user can read it), and what the same worker program, started with that
 * same environment, answers to a task whose document is a file of the config dir. Linux only.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** The pids whose parent is `parent` (the PDF workers of a service; its threads are not processes). */
export function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/u.test(name)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and brackets, so from the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The environment a process was started with. */
export function processEnvironment(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The program and arguments a process runs. */
export function processCommand(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a.length > 0);
}

const CODE_CACHE_SPY = `'use strict';
const vm = require('node:vm');
const { appendFileSync } = require('node:fs');
const Script = vm.Script;
vm.Script = function (code, options) {
  const script = new Script(code, options);
  if (options && options.cachedData) appendFileSync(__dirname + '/spy.jsonl', JSON.stringify({ file: require('node:path').basename(options.filename), rejected: script.cachedDataRejected }) + '\\n');
  return script;
};
`;

/**
 * A module for a PDF worker to preload (`options`, for its NODE_OPTIONS) that records, for each
 * script compiled with a code cache, whether V8 took it, in `scratch` (the one folder a worker may
 * write); `compiled()` reads what it recorded.
 */
export function codeCacheSpy(scratch: string): { options: string[]; compiled(): { file: string; rejected: boolean }[] } {
  writeFileSync(join(scratch, 'spy.cjs'), CODE_CACHE_SPY);
  return {
    options: ['--require', join(scratch, 'spy.cjs')],
    compiled: () => {
      const spied = existsSync(join(scratch, 'spy.jsonl')) ? readFileSync(join(scratch, 'spy.jsonl'), 'utf8').trim() : '';
      return spied === '' ? [] : spied.split('\n').map((line) => JSON.parse(line) as { file: string; rejected: boolean });
    },
  };
}

/**
 * Starts `command` as a PDF worker with exactly `env` (the IPC channel as the service opens it:
 * V8 serialization), waits for it to say it listens (workers/protocol.ts READY), posts `task` and
 * resolves with its answer ({ok, value} or {ok: false, error}); the worker is then ended.
 */
export function askPdfWorker(command: string[], env: Record<string, string>, task: unknown): Promise<{ ok: boolean; value?: unknown; error?: { message: string } }> {
  const [file, ...args] = command;
  const child = spawn(file!, args, { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the PDF worker did not answer within 20 s; stderr: ${stderr}`));
    }, 20_000);
    child.on('message', (m: { ready?: string; ok?: boolean }) => {
      if (m.ready === 'localsign-worker') {
        child.send(task as never);
        return;
      }
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(m as { ok: boolean });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the PDF worker exited (${code}) before answering; stderr: ${stderr}`));
    });
  });
}

/**
 * What a PDF worker may find in its environment: config/env.ts WORKER_VARIABLES, its own
 * NODE_OPTIONS, and the IPC channel's, which node's spawn adds (lib/internal/child_process.js).
 */
const WORKER_VARIABLES = ['NODE_OPTIONS', 'TZ', 'LANG', 'LC_ALL', 'NODE_ICU_DATA', 'SYSTEMROOT', 'WINDIR', 'NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE'];

/**
 * The PDF workers of the service `servicePid` on `home`, after it has done PDF work: their
 * environment holds none of `secrets` (names) and nothing but WORKER_VARIABLES; the same worker
 * program started with that environment cannot read files of the config dir (`sign-check` of a
 * document that is one), and reads a document in work/.
 */
export async function expectFencedPdfWorkers(o: { servicePid: number; home: string; secrets: string[]; pdf: Uint8Array; permissionFlag: string }): Promise<void> {
  const workers = childPids(o.servicePid).filter((pid) => processCommand(pid).some((a) => /localsign-pdf-worker\.cjs$|^__pdf-worker$/u.test(a)));
  expect(workers.length, 'no PDF worker of the service is running').toBeGreaterThan(0);
  const env = processEnvironment(workers[0]!);
  for (const name of o.secrets) expect(env, name).not.toHaveProperty(name);
  expect(Object.keys(env).filter((name) => !WORKER_VARIABLES.includes(name.toUpperCase()))).toEqual([]);
  expect(env.NODE_OPTIONS).toContain(`"${o.permissionFlag}"`);
  expect(env.NODE_OPTIONS).toContain(`"--allow-fs-write=${join(o.home, 'work', '*')}"`);

  const command = processCommand(workers[0]!);
  const scratch = join(o.home, 'work');
  const probe = join(scratch, 'probe.pdf');
  writeFileSync(probe, o.pdf);
  const ask = (path: string) =>
    askPdfWorker(command, env, { op: 'sign-check', pdf: { $file: path, length: statSync(path).size }, stamp: null, certify: null, scratch });
  for (const name of ['wrappers.json', 'embedded.json']) {
    const answer = await ask(join(o.home, name));
    expect(answer.ok, name).toBe(false);
    expect(answer.error?.message, name).toMatch(/Access to this API has been restricted/u);
  }
  // A PDF in the config dir itself is refused for where it is, not for what it is.
  const outside = join(o.home, 'probe.pdf');
  copyFileSync(probe, outside);
  expect((await ask(outside)).error?.message).toMatch(/Access to this API has been restricted/u);
  expect(await ask(probe)).toMatchObject({ ok: true });
}
