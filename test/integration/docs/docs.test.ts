import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ArgsDef, CommandDef } from 'citty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalsignClient } from '../../../clients/typescript/src/index';
import { OPERATIONS } from '../../../src/api/operations';
import { openApiDocument } from '../../../src/api/openapi';
import { mainCommand } from '../../../src/cli/command-tree';
import * as output from '../../../src/cli/output';
import { smallPdf } from '../../helpers/api-fixtures';
import { initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { startSquatter, type Squatter } from '../../helpers/squatter';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * docs/ checked against the code (issue 11): every route, status, client method, command, flag,
 * exit code, environment variable and file path the pages name exists, and the client example
 * runs against a real service.
 */
const ROOT = resolve(__dirname, '../../..');
const page = (name: string) => readFileSync(join(ROOT, 'docs', name), 'utf8');
const PAGES = ['integrators.md', 'operators.md', 'architecture.md'];

async function resolveValue<T>(v: unknown): Promise<T> {
  return (typeof v === 'function' ? await (v as () => unknown)() : await v) as T;
}

/** Every command of the CLI with its flags: `sign pdf` as one name. */
async function commands(): Promise<{ name: string; flags: string[] }[]> {
  const out: { name: string; flags: string[] }[] = [];
  const walk = async (cmd: CommandDef, path: string[]) => {
    const subs = (await resolveValue<Record<string, unknown> | undefined>(cmd.subCommands)) ?? {};
    for (const [name, sub] of Object.entries(subs)) {
      const def = await resolveValue<CommandDef>(sub);
      const args = (await resolveValue<ArgsDef | undefined>(def.args)) ?? {};
      out.push({ name: [...path, name].join(' '), flags: Object.entries(args).filter(([, a]) => a.type !== 'positional').map(([k]) => k) });
      await walk(def, [...path, name]);
    }
  };
  await walk(mainCommand, []);
  return out;
}

describe('docs/ against the code', () => {
  it('integrators.md: every route, every error status the document has, every client method', () => {
    const text = page('integrators.md');
    for (const op of OPERATIONS) expect(text, `${op.method} ${op.path}`).toContain(`\`${op.method} ${op.path.replace(/:([a-z_]+)/g, '{$1}')}`);
    const statuses = new Set<string>();
    for (const ops of Object.values(openApiDocument().paths)) for (const op of Object.values(ops)) for (const s of Object.keys((op as { responses: object }).responses)) statuses.add(s);
    for (const s of [...statuses].filter((x) => Number(x) >= 400)) expect(text, `status ${s}`).toMatch(new RegExp(`^\\| \`${s}\` \\|`, 'm'));
    const methods = Object.getOwnPropertyNames(LocalsignClient.prototype).filter((m) => !['constructor', 'request', 'requireApi2', 'longPoll', 'resultPdf'].includes(m));
    expect(methods.length).toBe(13);
    for (const m of methods) expect(text, m).toMatch(new RegExp(`\`${m}\\(`));
  });

  it('operators.md: every command, every flag, every exit code', async () => {
    const text = page('operators.md');
    const all = await commands();
    expect(all.length).toBeGreaterThanOrEqual(20);
    for (const c of all) {
      if (c.name === 'sign') continue; // its two subcommands are the entries
      expect(text, c.name).toContain(`\`${c.name}`);
      for (const f of c.flags.filter((x) => !['json', 'home'].includes(x))) expect(text, `${c.name} --${f}`).toContain(`--${f}`);
    }
    const codes = Object.entries(output).filter(([k]) => k.startsWith('EXIT_')).map(([, v]) => v as number);
    expect(codes.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    for (const code of [0, ...codes]) expect(text, `exit ${code}`).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  it('every file a page names exists, and every LOCALSIGN_ variable is one the code reads', () => {
    // The service reads its settings in src/config/env.ts; the build (signing certificates) and
    // the installers' scripts (fleet enrolment) read their own.
    const readers = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? readers(join(dir, e.name)) : [readFileSync(join(ROOT, dir, e.name), 'utf8')]));
    const env = [readFileSync(join(ROOT, 'src/config/env.ts'), 'utf8'), ...readers('build'), ...readers('installers')].join('\n');
    const reads = (name: string) => env.includes(`env.${name}`) || new RegExp(`\\$\\{?${name}\\b`).test(env);
    for (const name of [...PAGES.map((p) => `docs/${p}`), 'README.md', 'clients/typescript/README.md']) {
      const text = readFileSync(join(ROOT, name), 'utf8');
      for (const m of text.matchAll(/`((?:src|test|clients|build|installers|docs)\/[A-Za-z0-9_./-]+)`/g)) {
        // From the repository root, or from the page's own folder (the client's README).
        expect(existsSync(join(ROOT, m[1]!)) || existsSync(resolve(ROOT, name, '..', m[1]!)), `${name} names ${m[1]}`).toBe(true);
      }
      // The walk-through's own shell variables, printed by serve --demo, are not settings.
      const printed = ['LOCALSIGN_PADES_CREDENTIAL', 'LOCALSIGN_EVM_CREDENTIAL'];
      for (const m of text.matchAll(/\bLOCALSIGN_[A-Z_]+\b/g)) if (!printed.includes(m[0])) expect(reads(m[0]), `${name} names ${m[0]}, which nothing reads`).toBe(true);
      for (const m of text.matchAll(/\]\(([a-z./-]+\.md)(#[a-z0-9-]+)?\)/g)) {
        const target = resolve(join(ROOT, name, '..'), m[1]!);
        expect(existsSync(target), `${name} links ${m[1]}`).toBe(true);
        if (m[2]) expect(headingAnchors(readFileSync(target, 'utf8')), `${name} links ${m[1]}${m[2]}`).toContain(m[2].slice(1));
      }
    }
    for (const m of page('operators.md').matchAll(/\]\((#[a-z0-9-]+)\)/g)) expect(headingAnchors(page('operators.md'))).toContain(m[1]!.slice(1));
  });
});

function headingAnchors(text: string): string[] {
  return [...text.matchAll(/^#{1,4} (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[`'’]/g, '').replace(/[^a-z0-9 -]/g, '').trim().replace(/ /g, '-'));
}

describe('the docs stand alone', () => {
  it('they name no file a reader of the repository does not have, and no issue number: history is in git log', () => {
    const files = ['README.md', 'clients/typescript/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const outside = /\b(CONTRACT(\.md)?|STYLE\.md|PLATFORM\.md)\b|\bspec §|\b[Ii]ssues? #?\d+/;
    for (const file of files) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      const found = lines.map((line, i) => [i + 1, line] as const).filter(([, line]) => outside.test(line));
      expect(found.map(([n, line]) => `${file}:${n}: ${line.trim().slice(0, 100)}`), file).toEqual([]);
    }
  });
});

describe('the client example of integrators.md runs against a real service', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess;
  let file = '';
  let wrapper: { key: string; secret: string };
  beforeAll(async () => {
    wrapper = initEmbeddedWithWrapper(tmp.home);
    service = await startServiceProcess({ home: tmp.home });
  });
  afterAll(async () => {
    await service?.stop();
    if (file) rmSync(file, { recursive: true, force: true });
    tmp.cleanup();
  });

  it('signs a PDF and a hash and meets a 422, as written', async () => {
    const text = page('integrators.md');
    const block = /<!-- example: client[^>]*-->\n```ts\n([\s\S]*?)```/.exec(text)?.[1];
    expect(block).toBeDefined();
    // The package name resolves to the client's source, here in the repository.
    const dir = mkdtempSync(join(ROOT, 'clients/typescript/test/.docs-example-'));
    file = dir;
    // (removed in afterAll)
    writeFileSync(join(dir, 'example.ts'), block!.replace("from '@localsign/client'", "from '../../src/index'"));
    const { example } = (await import(join(dir, 'example.ts'))) as { example: (env: Record<string, unknown>) => Promise<Record<string, unknown>> };
    const client = new LocalsignClient({ baseUrl: service.url, ...wrapper });
    const list = (await client.listCredentials()).credentials;
    const pdf = await smallPdf('docs example');
    const out = await example({
      BASE: service.url,
      KEY: wrapper.key,
      SECRET: wrapper.secret,
      PADES: list.find((c) => c.type === 'pades')!.credential_key,
      EVM: list.find((c) => c.type === 'evm')!.credential_key,
      PDF: new Uint8Array(pdf),
    });
    expect(Buffer.from(out.signed as Uint8Array).subarray(0, pdf.length).equals(pdf)).toBe(true);
    expect(out.hash).toMatchObject({ status: 'DONE', chain_id: 1 });
    expect(out.refused).toEqual({ status: 422, kind: 'invalid', error_id: expect.stringMatching(/^err_/) });
  });
});


describe('the command-line example of integrators.md signs as written', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const wrapper = initEmbeddedWithWrapper(tmp.home);
    service = await startServiceProcess({ home: tmp.home });
    const list = (await new LocalsignClient({ baseUrl: service.url, ...wrapper }).listCredentials()).credentials;
    // `localsign` on PATH, as `npm install -g .` gives it: the built bundle.
    const bin = join(tmp.home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'localsign'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/localsign.cjs')}" "$@"\n`, { mode: 0o755 });
    writeFileSync(join(tmp.home, 'in.pdf'), await smallPdf('docs CLI example'));
    env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      LOCALSIGN_HOME: tmp.home,
      LOCALSIGN_KEY: wrapper.key,
      LOCALSIGN_SECRET: wrapper.secret,
      LOCALSIGN_PADES_CREDENTIAL: list.find((c) => c.type === 'pades')!.credential_key,
      NO_COLOR: '1',
    };
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it('a stamp with every line filled (no warning) and the page it is on', async () => {
    const block = /## From the command line[\s\S]*?```bash\n([\s\S]*?)```/.exec(page('integrators.md'))?.[1];
    const command = /^localsign sign pdf [^\n]*\\\n[^\n]*$/m.exec(block ?? '')?.[0];
    expect(command, 'the sign pdf command of "From the command line"').toBeDefined();
    const run = await spawnAsync('bash', ['-c', `set -euo pipefail\ncd "${tmp.home}"\n${command!}`], env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Signed in\.pdf -> out\.pdf \(\d+ bytes, req_\S+\)\nStamp on page 1 of 1 at x [\d.]+, y [\d.]+ \([\d.]+ x [\d.]+ pt\)\n$/);
  });
});

describe('the shell example of integrators.md "Authenticating the service" runs as written', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess;
  let squatter: Squatter;
  let wrapper: { key: string; secret: string };
  beforeAll(async () => {
    wrapper = initEmbeddedWithWrapper(tmp.home);
    service = await startServiceProcess({ home: tmp.home });
    squatter = await startSquatter({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all([service?.stop(), squatter?.stop()]);
    tmp.cleanup();
  });

  const run = (env: Record<string, string>) => {
    const block = /<!-- example: service-proof[^>]*-->\n```bash\n([\s\S]*?)```/.exec(page('integrators.md'))?.[1];
    expect(block).toBeDefined();
    // Its `mktemp -d` inside this test's config dir, removed with it.
    return spawnAsync('bash', ['-c', `set -euo pipefail\n${block!}`], { ...process.env, TMPDIR: tmp.home, ...env });
  };

  it('with the service: the proof holds, and the signed request is answered and proven', async () => {
    const r = await run({ BASE: service.url, LOCALSIGN_KEY: wrapper.key, LOCALSIGN_SECRET: wrapper.secret });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual({ results: [] });
  });

  it('with a wrong secret, or a program that is not the service: it stops at the proof, and the program got no signed request', async () => {
    const wrong = await run({ BASE: service.url, LOCALSIGN_KEY: wrapper.key, LOCALSIGN_SECRET: 'wsec_wrong' });
    expect([wrong.status, wrong.stderr]).toEqual([1, `${service.url} did not prove it is the localsign service: nothing sent\n`]);
    const squatted = await run({ BASE: squatter.url, LOCALSIGN_KEY: wrapper.key, LOCALSIGN_SECRET: wrapper.secret });
    expect([squatted.status, squatted.stderr]).toEqual([1, `${squatter.url} did not prove it is the localsign service: nothing sent\n`]);
    expect((await squatter.received()).map((e) => `${e.method} ${e.url}`)).toEqual(['GET /health']);
  });
});

function spawnAsync(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolveRun({ status, stdout, stderr }));
  });
}
