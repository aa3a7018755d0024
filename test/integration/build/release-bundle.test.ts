/**
 * Issue 18: the release binary carried the test switch LOCALSIGN_TEST_FAULT, with which the
 * service SIGKILLs itself. build/bundle.mjs now drops every `TEST_FAULT:` block unless
 * LOCALSIGN_TEST_BUILD is set (as `npm test` sets it). Shown on a release build made here into a
 * scratch dir: the switch is not in its text, and a service started with it set signs instead of
 * dying; the test build in dist/ still carries it (the crash tests need it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBundle, BUNDLE } from '../../helpers/cli';
import { authed, startServiceProcess, waitForResult } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

const ROOT = resolve(__dirname, '../../..');
const SWITCH = /LOCALSIGN_TEST_FAULT|kill-in-job|kill-after-audit/;

describe('the release bundle (npm run build without LOCALSIGN_TEST_BUILD)', () => {
  const tmp = makeTmpHome();
  const out = join(tmp.home, 'release');
  beforeAll(() => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOCALSIGN_OUT_DIR: out };
    delete env.LOCALSIGN_TEST_BUILD;
    execFileSync(process.execPath, ['build/bundle.mjs'], { cwd: ROOT, env, stdio: 'ignore', timeout: 120_000 });
  }, 130_000);
  afterAll(() => tmp.cleanup());

  it('holds no test switch, where the test build does', () => {
    for (const file of ['localsign-main.cjs', 'localsign-worker.cjs', 'localsign-pdf-worker.cjs']) {
      expect(readFileSync(join(out, file), 'utf8'), file).not.toMatch(SWITCH);
    }
    assertBundle();
    expect(readFileSync(join(dirname(BUNDLE), 'localsign-main.cjs'), 'utf8')).toMatch(SWITCH);
  });

  it('--version tells the two builds apart: the test build says so, the release build shows its commit alone', () => {
    const commit = (JSON.parse(readFileSync(join(out, 'build-info.json'), 'utf8')) as { commit: string }).commit;
    expect(execFileSync(process.execPath, [join(out, 'localsign.cjs'), '--version'], { encoding: 'utf8' })).toBe(`0.2.0 (${commit})\n`);
    expect(execFileSync(process.execPath, [BUNDLE, '--version'], { encoding: 'utf8' })).toBe(`0.2.0 (${commit}, test build)\n`);
    const json = JSON.parse(execFileSync(process.execPath, [join(out, 'localsign.cjs'), 'version', '--json'], { encoding: 'utf8' })) as { build: string };
    expect(json.build).toBe('release');
  });

  it('ignores LOCALSIGN_TEST_FAULT: the job signs instead of killing the service', async () => {
    const service = await startServiceProcess({
      home: join(tmp.home, 'home'),
      command: [process.execPath, join(out, 'localsign.cjs')],
      args: ['--demo'],
      env: { LOCALSIGN_TEST_FAULT: 'kill-in-job' },
    });
    try {
      const env = Object.fromEntries([...service.output().matchAll(/export (LOCALSIGN_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
      const call = authed(service.url, { key: env.LOCALSIGN_KEY!, secret: env.LOCALSIGN_SECRET! });
      const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: 'ab'.repeat(32), credential_key: env.LOCALSIGN_EVM_CREDENTIAL, chain_id: 1 }) });
      expect(res.status).toBe(202);
      expect(await waitForResult(call, ((await res.json()) as { request_id: string }).request_id)).toMatchObject({ status: 'DONE' });
      expect(service.child.exitCode).toBeNull();
      expect(service.child.signalCode).toBeNull();
    } finally {
      await service.stop();
    }
  }, 60_000);
});
