import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson, runCli, runCliAsync } from '../../helpers/cli';
import { serveUntilExit, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure } from './_cli-expect';

/**
 * The CLI tried as a new user would (issue 11 "A CLI that surprises no one"): one test per item.
 */
const wrappersOf = (home: string): { key: string; name: string; revoked_at: string | null }[] =>
  existsSync(join(home, 'wrappers.json')) ? (JSON.parse(readFileSync(join(home, 'wrappers.json'), 'utf8')) as { wrappers: { key: string; name: string; revoked_at: string | null }[] }).wrappers : [];

describe('flags and commands it does not know are usage errors (exit 2)', () => {
  const tmp = makeTmpHome();
  afterAll(() => tmp.cleanup());

  it('status --prot 18400 checks nothing and names the flag meant', () => {
    const r = runCli(['status', '--prot', '18400'], { home: tmp.home });
    expect(r.stdout).toBe('');
    expect(expectOneLineFailure(r, 2)).toBe('unknown flag --prot for status; did you mean --port? (see `localsign status --help`)');
  });

  it('wrapper:create --nmae foo creates no key', () => {
    runCli(['init', '--embedded'], { home: tmp.home });
    const before = wrappersOf(tmp.home).length;
    expect(expectOneLineFailure(runCli(['wrapper:create', '--nmae', 'foo'], { home: tmp.home }), 2)).toBe(
      'unknown flag --nmae for wrapper:create; did you mean --name? (see `localsign wrapper:create --help`)',
    );
    expect(wrappersOf(tmp.home)).toHaveLength(before);
    // Declared flags in every spelling still work: --name=x, --no-json, repeated --credential.
    const ok = parseJson<{ name: string }>(runCli(['wrapper:create', '--name=scripts', '--json'], { home: tmp.home }));
    expect(ok.name).toBe('scripts');
  });

  it('an unknown command, a nested one, and serve --json (serve prints log lines, not data)', () => {
    expect(expectOneLineFailure(runCli(['frobnicate'], { home: tmp.home }), 2)).toBe('unknown command frobnicate (see `localsign --help`)');
    expect(expectOneLineFailure(runCli(['sign', 'docx'], { home: tmp.home }), 2)).toBe('unknown command sign docx (see `localsign sign --help`)');
    expect(expectOneLineFailure(runCli(['serve', '--json', '--port', '0'], { home: tmp.home }), 2)).toBe('unknown flag --json for serve (see `localsign serve --help`)');
    expect(expectOneLineFailure(runCli(['sign', 'pdf', '-x'], { home: tmp.home }), 2)).toBe('unknown flag -x for sign pdf (see `localsign sign pdf --help`)');
  });

  it('version is a command', () => {
    const r = runCli(['version'], { home: tmp.home });
    expect(r.stdout).toMatch(/^localsign 0\.2\.0 \(commit \S+, api_version 2\)\n$/);
    expect(parseJson(runCli(['version', '--json'], { home: tmp.home }))).toEqual({ version: '0.2.0', commit: expect.any(String), api_version: 2, build: 'release' });
  });
});

describe('no ANSI colours when piped, even without NO_COLOR', () => {
  const tmp = makeTmpHome();
  afterAll(() => tmp.cleanup());
  const colourful = { NO_COLOR: '', FORCE_COLOR: '', TERM: 'xterm-256color', CI: '', TEST: '' };

  it.each([[['--help']], [['sign', 'pdf', '--help']], [['status', '--help']]])('%j', (args) => {
    const r = runCli(args, { home: tmp.home, env: colourful });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('USAGE');
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('errors', () => {
    const r = runCli(['frobnicate'], { home: tmp.home, env: colourful });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('unknown command frobnicate (see `localsign --help`)\n');
  });
});

describe('commands that read the config dir create nothing, and say what they did not do', () => {
  const tmp = makeTmpHome();
  afterAll(() => tmp.cleanup());

  it('wrapper:list --home /nonexistent is an error and creates no dir', () => {
    const missing = join(tmp.home, 'nonexistent');
    const r = runCli(['wrapper:list', '--home', missing], { home: tmp.home });
    expect(expectOneLineFailure(r)).toBe(`no config dir at ${missing} (\`localsign init\` creates one; --home or LOCALSIGN_HOME picks another)`);
    expect(existsSync(missing)).toBe(false);
  });

  it('revoking a key already revoked is an error, not "Revoked"', () => {
    runCli(['init', '--embedded'], { home: tmp.home });
    const { key } = parseJson<{ key: string }>(runCli(['wrapper:create', '--json'], { home: tmp.home }));
    expect(runCli(['wrapper:revoke', key], { home: tmp.home }).stdout).toBe(`Revoked ${key}\n`);
    const revokedAt = wrappersOf(tmp.home).find((w) => w.key === key)!.revoked_at;
    expect(expectOneLineFailure(runCli(['wrapper:revoke', key], { home: tmp.home }))).toBe(`${key} was already revoked at ${revokedAt}`);
  });
});

describe('serve --demo, status and the service of a config dir', () => {
  const tmp = makeTmpHome();
  const other = makeTmpHome();
  let first: ServiceProcess | null = null;
  let second: ServiceProcess | null = null;
  let blocker: Server | null = null;
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    blocker?.close();
    tmp.cleanup();
    other.cleanup();
  });
  const exportsOf = (output: string) => Object.fromEntries([...output.matchAll(/export ([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));

  it('keeps the demo key across restarts and prints BASE with the port it took', async () => {
    first = await startServiceProcess({ home: tmp.home, args: ['--demo'] });
    const a = exportsOf(first.output());
    expect(a.BASE).toBe(first.url);
    expect(Object.keys(a).sort()).toEqual(['BASE', 'LOCALSIGN_EVM_CREDENTIAL', 'LOCALSIGN_KEY', 'LOCALSIGN_PADES_CREDENTIAL', 'LOCALSIGN_SECRET']);
    const call = () => fetch(`${first!.url}/v1/results`, { headers: { 'x-wrapper-key': a.LOCALSIGN_KEY!, 'x-wrapper-secret': a.LOCALSIGN_SECRET! } });
    const signed = await fetch(`${first.url}/v1/blockchain/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wrapper-key': a.LOCALSIGN_KEY!, 'x-wrapper-secret': a.LOCALSIGN_SECRET! },
      body: JSON.stringify({ tx_hash: 'ab'.repeat(32), credential_key: a.LOCALSIGN_EVM_CREDENTIAL }),
    });
    expect(signed.status).toBe(202);
    await first.stop();

    first = await startServiceProcess({ home: tmp.home, args: ['--demo'] });
    const b = exportsOf(first.output());
    expect(b.LOCALSIGN_KEY).toBe(a.LOCALSIGN_KEY);
    expect(b.LOCALSIGN_SECRET).toBe(a.LOCALSIGN_SECRET);
    expect(first.output()).toContain('Demo application key (the same as at the last start;');
    const res = await call();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: unknown[] }).results).toHaveLength(1);
    expect(wrappersOf(tmp.home).filter((w) => w.name === 'demo')).toHaveLength(1);
  });

  it('report --out into a missing folder names that folder (not a temp file), before asking', async () => {
    const a = exportsOf(first!.output());
    const missing = await fetch(`${first!.url}/v1/results/req_nothing`, { headers: { 'x-wrapper-key': a.LOCALSIGN_KEY!, 'x-wrapper-secret': a.LOCALSIGN_SECRET! } });
    const { error_id } = (await missing.json()) as { error_id: string };
    const out = join(tmp.home, 'no-such-dir', 'incident.json');
    const r = await runCliAsync(['report', error_id, '--out', out], { home: tmp.home });
    expect(r.stderr).toBe(`cannot write ${out}: the folder ${join(tmp.home, 'no-such-dir')} does not exist\n`);
    expect(r.status).toBe(1);
  });

  it('status finds the service of its config dir on whatever port it took', async () => {
    const r = await runCliAsync(['status', '--json'], { home: tmp.home });
    expect(r.status).toBe(0);
    expect(parseJson(r)).toMatchObject({ reachable: true, url: `${first!.url}/health`, config_dir: tmp.home });
  });

  it('status --port P of another config dir\'s service does not claim this dir', async () => {
    runCli(['init', '--embedded'], { home: other.home });
    second = await startServiceProcess({ home: other.home });
    const r = await runCliAsync(['status', '--json', '--port', String(second.port)], { home: tmp.home });
    expect(parseJson(r)).toMatchObject({ reachable: true, url: `${second.url}/health`, config_dir: null });
    const human = await runCliAsync(['status', '--port', String(second.port)], { home: tmp.home });
    expect(human.stdout).toContain(`; config dir unknown (not ${tmp.home}, whose service is at ${first!.url})\n`);
  });

  it('a demo key revoked by the operator is replaced, loudly', async () => {
    const old = exportsOf(first!.output()).LOCALSIGN_KEY!;
    await first!.stop();
    runCli(['wrapper:revoke', old], { home: tmp.home });
    first = await startServiceProcess({ home: tmp.home, args: ['--demo'] });
    const fresh = exportsOf(first.output()).LOCALSIGN_KEY!;
    expect(fresh).not.toBe(old);
    expect(first.output()).toContain(`Demo application key (new: ${old} was revoked, so earlier exports no longer work;`);
    expect(first.output()).toContain(`the demo key changed: ${old} was revoked; use the new exports above`);
  });

  it('serve --demo on a busy port fails before it creates a key', async () => {
    await first!.stop();
    first = null;
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const before = wrappersOf(tmp.home);
    const r = await serveUntilExit({ home: tmp.home, args: ['--demo', '--port', String(port)] });
    expect(r.code).toBe(1);
    expect(r.output).not.toContain('export LOCALSIGN_KEY');
    expect(wrappersOf(tmp.home)).toEqual(before);
  });
});
