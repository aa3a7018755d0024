import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, postJson, smallPdf } from '../../helpers/api-fixtures';
import { runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, serveUntilExit, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 10, hardening: what the config dir may hold when the service starts. Links are refused,
 * loose modes on store files are tightened, half-written temp files are removed.
 */
const tmp = makeTmpHome('localsign-store-safety-');
const home = tmp.home;
let creds: { key: string; secret: string };
let svc: ServiceProcess | undefined;

beforeAll(() => {
  creds = initEmbeddedWithWrapper(home);
});
afterAll(async () => {
  await svc?.stop();
  tmp.cleanup();
});

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe('at start', () => {
  it('tightens loose modes on store files and says so; removes leftover temp files', async () => {
    writeFileSync(join(home, 'requests.jsonl'), '', { mode: 0o644 });
    chmodSync(join(home, 'requests.jsonl'), 0o644);
    chmodSync(join(home, 'results'), 0o755);
    writeFileSync(join(home, 'service.log'), '');
    chmodSync(join(home, 'service.log'), 0o640);
    const temps = [join(home, 'work', 'req_half.pdf.4242.0a1b2c3d.tmp'), join(home, 'results', 'req_half.pdf.4242.0a1b2c3d.tmp'), join(home, 'wrappers.json.999999.0a1b2c3d.tmp')];
    for (const t of temps) writeFileSync(t, 'half', { mode: 0o600 });
    // A temp file whose writer is alive (a CLI command writing now) stays.
    const live = join(home, `cache.json.${process.pid}.0a1b2c3d.tmp`);
    writeFileSync(live, 'writing', { mode: 0o600 });

    svc = await startServiceProcess({ home });
    expect(mode(join(home, 'requests.jsonl'))).toBe('600');
    expect(mode(join(home, 'results'))).toBe('700');
    expect(mode(join(home, 'service.log'))).toBe('600');
    const out = svc.output();
    expect(out).toContain(`${join(home, 'requests.jsonl')} was accessible by other users (mode 644); set to 600`);
    expect(out).toContain(`${join(home, 'results')} was accessible by other users (mode 755); set to 700`);
    expect(out).toContain('removed 3 half-written temp file(s) left by an earlier run');
    for (const t of temps) expect(existsSync(t), t).toBe(false);
    expect(existsSync(live)).toBe(true);
    rmSync(live);
  });

  it('a results/<id>.pdf replaced by a link is not served', async () => {
    const call = authed(svc!.url, creds);
    const [credential] = (await credentialKeys(call)).pades;
    const res = await postJson(call, '/v1/pades/sign', { pdf_base64: (await smallPdf()).toString('base64'), credential_key: credential });
    const { request_id: id } = (await res.json()) as { request_id: string };
    expect(await waitForResult(call, id)).toMatchObject({ status: 'DONE' });
    const secret = join(tmp.home, '..', `store-safety-secret-${process.pid}.txt`);
    writeFileSync(secret, 'SECRET CONTENT');
    try {
      const result = join(home, 'results', `${id}.pdf`);
      renameSync(result, `${result}.moved`);
      symlinkSync(secret, result);
      const got = await call(`/v1/results/${id}`);
      const text = await got.text();
      expect(got.status).toBe(500);
      expect(text).not.toContain(Buffer.from('SECRET CONTENT').toString('base64'));
      expect(JSON.parse(text)).toEqual({ error: `${result} is a symbolic link; localsign does not follow links in its config dir (remove the link and put the real file there)`, error_id: expect.stringMatching(/^err_/) });
      // The streamed PDF route neither (it opened the file with a plain open before).
      const raw = await call(`/v1/results/${id}/pdf`);
      const rawText = await raw.text();
      expect(raw.status).toBe(500);
      expect(rawText).not.toContain('SECRET CONTENT');
    } finally {
      rmSync(secret, { force: true });
    }
    expect(await svc!.stop()).toBe(0);
    svc = undefined;
  });

  it.each([
    ['wrappers.json', 'file'],
    ['requests.jsonl', 'file'],
    ['audit.jsonl', 'file'],
    ['errors.jsonl', 'file'],
    ['results', 'folder'],
  ])('refuses to start when %s is a symbolic link, naming it and the fix', async (name, kind) => {
    const path = join(home, name);
    const real = `${path}.real`;
    if (existsSync(path)) renameSync(path, real);
    else if (kind === 'folder') mkdirSync(real);
    else writeFileSync(real, '', { mode: 0o600 });
    symlinkSync(real, path);
    try {
      const run = await serveUntilExit({ home });
      expect(run.code).toBe(1);
      expect(run.output.trim()).toBe(`${path} is a symbolic link; localsign does not follow links in its config dir: remove it (rm ${path}) and put the real ${kind} there`);
      // The CLI reads the same files: it refuses as well.
      const list = runCli(['wrapper:list'], { home });
      expect(list.status).toBe(1);
      expect(list.stderr).toContain(`${path} is a symbolic link`);
    } finally {
      rmSync(path);
      renameSync(real, path);
    }
  });

  it('starts again once the links are gone', async () => {
    svc = await startServiceProcess({ home });
    expect(readFileSync(join(home, 'service.log'), 'utf8')).toContain('listening on');
  });
});
