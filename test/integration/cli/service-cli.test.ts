import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli, runCliAsync } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure, filesContaining, runOnTty, walkModes } from './_cli-expect';

/** Commands that talk to, or guard, a running service (`serve`, `status`, `report`, audit). */

const PDF_B64 = readFileSync(join(__dirname, '../../vectors/pdf/pdflib-xref-table.pdf')).toString('base64');

interface Credential {
  credential_key: string;
  type: 'pades' | 'evm';
  address?: string;
}

describe('with a running service', () => {
  /** The err_ id of the 404 the report tests send (set by the first of them). */
  let reportedErrorId = '';
  const tmp = makeTmpHome();
  const home = tmp.home;
  let creds: { key: string; secret: string };
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let credentials: Credential[];
  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(home);
    service = await startServiceProcess({ home });
    call = authed(service.url, creds);
    credentials = ((await (await call('/v1/credentials')).json()) as { credentials: Credential[] }).credentials;
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it('status --port: exit 0 with the /health fields, reachable true and config_dir', async () => {
    const r = await runCliAsync(['status', '--json', '--port', String(service.port)], { home });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const health = (await (await fetch(`${service.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ service: 'local-signing-service', version: '0.2.0', api_version: 2, paired: true, tenant_id: 0 });
    expect(parseJson(r)).toEqual({ ...health, reachable: true, url: `http://127.0.0.1:${service.port}/health`, config_dir: home });
    const human = await runCliAsync(['status', '--port', String(service.port)], { home });
    expect(human.status).toBe(0);
    expect(human.stdout).toBe(
      `localsign 0.2.0 (${String(health.commit)}) at http://127.0.0.1:${service.port}/health: paired=true tenant=0 credentials=3 designs=2; config dir ${home}\n`,
    );
  });

  it('report shows exactly what would leave, refuses without --yes on a pipe, writes with --yes --out', async () => {
    const missing = await call('/v1/results/req_doesnotexist');
    expect(missing.status).toBe(404);
    const { error_id } = (await missing.json()) as { error_id: string };
    reportedErrorId = error_id;
    const out = join(home, 'incident.json');

    // A 404 belongs to no request of this application: it carries no request id, so the operator
    // reports it by its err_ id (issue 11), and a req_ id finds nothing for it.
    expect(expectOneLineFailure(await runCliAsync(['report', 'req_doesnotexist', '--out', out, '--yes'], { home }))).toBe('no recorded errors for req_doesnotexist');
    const refused = await runCliAsync(['report', error_id, '--out', out], { home });
    expect(expectOneLineFailure(refused)).toBe('confirmation needed but stdin is not a terminal; re-run with --yes to proceed');
    expect(refused.stdout).toBe('');
    expect(existsSync(out)).toBe(false);

    const sent = await runCliAsync(['report', error_id, '--yes', '--out', out, '--json'], { home });
    expect(sent.status).toBe(0);
    expect(parseJson(sent)).toEqual({ ok: true, request_id: null, errors: 1, written_to: out });
    const written = readFileSync(out, 'utf8');
    const bundle = JSON.parse(written) as { request_id: string; errors: Record<string, unknown>[] };
    expect(Object.keys(bundle).sort()).toEqual(['errors', 'request_id']);
    expect(bundle.request_id).toBeNull();
    expect(bundle.errors).toHaveLength(1);
    expect(bundle.errors[0]).toMatchObject({ error_id, request_id: null, status: 404, short: 'no request req_doesnotexist', type: 'not_found', wrapper_key: creds.key });
    expect(String(bundle.errors[0]!.traceback)).toMatch(/^LocalsignError: no request req_doesnotexist\n\s+at /);
    // What was shown is byte for byte what was written: the header line, then the file's JSON.
    expect(sent.stderr).toBe(`This will be written to the file ${out}:\n${written}`);
    expect(filesContaining(home, creds.secret.slice(5))).toEqual([]);
  });

  it('on a terminal, report asks: "n" sends nothing (exit 1), "y" writes the file', async () => {
    const out = join(home, 'incident-tty.json');
    const declined = await runOnTty(['report', reportedErrorId, '--out', out], { home, answer: 'n' });
    expect(declined.status).toBe(1);
    expect(declined.screen).toContain(`This will be written to the file ${out}:`);
    // The embedded platform only writes a file: the prompt says so (issue 11: it said "Send").
    expect(declined.screen).toContain(`Write 1 error record(s) for ${reportedErrorId}? [y/N]`);
    expect(declined.screen).toContain('not written: the operator declined');
    expect(existsSync(out)).toBe(false);

    const accepted = await runOnTty(['report', reportedErrorId, '--out', out], { home, answer: 'y' });
    expect(accepted.status).toBe(0);
    expect(accepted.screen).toContain(`Wrote 1 error record(s) for ${reportedErrorId} to ${out}`);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { errors: { error_id: string }[] }).errors[0]!.error_id).toBe(reportedErrorId);
  });

  it('a revoked key is refused by the running service on its next request', async () => {
    const w = parseJson<{ key: string; secret: string }>(await runCliAsync(['wrapper:create', '--json'], { home }));
    const other = authed(service.url, w);
    expect((await other('/v1/credentials')).status).toBe(200);
    expect((await runCliAsync(['wrapper:revoke', w.key], { home })).status).toBe(0);
    expect((await other('/v1/credentials')).status).toBe(401);
  });

  it('secrets never reach a log, and audit.jsonl has one record per signature', async () => {
    const evm = credentials.find((c) => c.type === 'evm')!;
    const pades = credentials.filter((c) => c.type === 'pades');
    const hashes = ['0X' + 'AB'.repeat(32), '0x' + '0f'.repeat(32), '11'.repeat(32)];
    const ids: { id: string; kind: 'blockchain' | 'pades'; credential: string; digest: RegExp }[] = [];
    for (const [i, h] of hashes.entries()) {
      const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: h, credential_key: evm.credential_key, chain_id: i === 0 ? 1 : null }) });
      expect(res.status).toBe(202);
      const digest = new RegExp(`^${h.replace(/^0x/i, '').toLowerCase()}$`);
      ids.push({ id: ((await res.json()) as { request_id: string }).request_id, kind: 'blockchain', credential: evm.credential_key, digest });
    }
    for (const c of pades) {
      const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: PDF_B64, credential_key: c.credential_key, signer_name: 'Ada' }) });
      expect(res.status).toBe(202);
      ids.push({ id: ((await res.json()) as { request_id: string }).request_id, kind: 'pades', credential: c.credential_key, digest: /^[0-9a-f]{64}$/ });
    }
    // Failures that carry the secret in their headers: a wrong secret, and a 422.
    expect((await authed(service.url, { key: creds.key, secret: creds.secret + 'x' })('/v1/results')).status).toBe(401);
    expect((await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: 'zz', credential_key: evm.credential_key }) })).status).toBe(422);
    for (const r of ids) expect((await waitForResult(call, r.id)).status).toBe('DONE');

    const audit = readFileSync(join(home, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of ids) {
      const recs = audit.filter((a) => a.request_id === r.id);
      expect(recs).toHaveLength(1);
      expect(Object.keys(recs[0]!).sort()).toEqual(['credential_key', 'digest', 'kind', 'outcome', 'request_id', 'ts', 'wrapper_key']);
      expect(recs[0]).toMatchObject({ wrapper_key: creds.key, credential_key: r.credential, kind: r.kind, outcome: 'DONE', ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
      expect(recs[0]!.digest).toMatch(r.digest);
    }
    expect(audit).toHaveLength(ids.length);

    for (const name of ['errors.jsonl', 'errors.log', 'service.log', 'audit.jsonl', 'requests.jsonl']) expect(existsSync(join(home, name)), name).toBe(true);
    expect(filesContaining(home, creds.secret.slice(5))).toEqual([]);
    expect(filesContaining(home, 'wsec_')).toEqual([]);
    expect(service.output()).not.toContain(creds.secret.slice(5));
    expect(service.output()).not.toContain('wsec_');
    // Everything the service and the CLI wrote meanwhile is private too (CONTRACT: 0700 / 0600).
    expect(walkModes(home).filter((e) => e.mode !== (e.dir ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`)).toEqual([]);
  });
});

describe('serve refuses a config dir others can read', () => {
  const tmp = makeTmpHome();
  const home = tmp.home;
  beforeAll(() => {
    initEmbeddedWithWrapper(home);
  });
  afterAll(() => tmp.cleanup());

  it('home mode 0755: exit 1, one line naming the path and `chmod 700`', () => {
    chmodSync(home, 0o755);
    try {
      const line = expectOneLineFailure(runCli(['serve', '--port', '0'], { home, timeoutMs: 20_000 }));
      expect(line).toBe(`${home} is accessible by other users (mode 755); fix it with: chmod 700 ${home}`);
    } finally {
      chmodSync(home, 0o700);
    }
  });

  it('a port already in use: exit 1, one line naming the port asked for (not Consul\'s 8300) and how to change it', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await runCliAsync(['serve', '--port', String(port)], { home });
      expect(expectOneLineFailure(r)).toBe(
        `port ${port} is already in use on 127.0.0.1 (another localsign, or another program); choose another with --port N or LOCALSIGN_PORT=N`,
      );
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  });

  it('wrappers.json mode 0644: exit 1, one line naming the file and `chmod 600`', () => {
    const file = join(home, 'wrappers.json');
    chmodSync(file, 0o644);
    try {
      const line = expectOneLineFailure(runCli(['serve', '--port', '0'], { home, timeoutMs: 20_000 }));
      expect(line).toBe(`${file} is accessible by other users (mode 644); fix it with: chmod 600 ${file}`);
    } finally {
      chmodSync(file, 0o600);
    }
  });
});
