/**
 * The release bundle carries no test switch: build/bundle.mjs drops every `TEST_FAULT:` block
 * (LOCALSIGN_TEST_FAULT, with which the service SIGKILLs itself) unless LOCALSIGN_TEST_BUILD is
 * set. `npm test` builds both: the release bundle in dist/, which every spawned service and CLI
 * runs, and the test build in dist-test/, which only the crash tests start. Shown on the two: the
 * switch is not in the release bundle's text, and a release service started with it set signs
 * instead of dying.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBundle, assertTestBuild, BUNDLE, TEST_BUNDLE } from '../../helpers/cli';
import { authed, startServiceProcess, waitForResult } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

const SWITCH = /LOCALSIGN_TEST_FAULT|kill-in-job|kill-after-audit/;

describe('the release bundle in dist/, the one the tests spawn', () => {
  const tmp = makeTmpHome();
  const out = dirname(BUNDLE);
  afterAll(() => tmp.cleanup());

  it('holds no test switch, where the test build does', () => {
    assertBundle();
    assertTestBuild();
    for (const file of ['localsign-main.cjs', 'localsign-worker.cjs', 'localsign-pdf-worker.cjs']) {
      expect(readFileSync(join(out, file), 'utf8'), file).not.toMatch(SWITCH);
    }
    expect(readFileSync(join(dirname(TEST_BUNDLE), 'localsign-main.cjs'), 'utf8')).toMatch(SWITCH);
  });

  it('--version tells the two builds apart: the test build says so, the release build shows its commit alone', () => {
    const commit = (JSON.parse(readFileSync(join(out, 'build-info.json'), 'utf8')) as { commit: string }).commit;
    expect(execFileSync(process.execPath, [BUNDLE, '--version'], { encoding: 'utf8' })).toBe(`0.2.0 (${commit})\n`);
    expect(execFileSync(process.execPath, [TEST_BUNDLE, '--version'], { encoding: 'utf8' })).toBe(`0.2.0 (${commit}, test build)\n`);
    const json = JSON.parse(execFileSync(process.execPath, [BUNDLE, 'version', '--json'], { encoding: 'utf8' })) as { build: string };
    expect(json.build).toBe('release');
  });

  it('ignores LOCALSIGN_TEST_FAULT: the job signs instead of killing the service', async () => {
    const service = await startServiceProcess({
      home: join(tmp.home, 'home'),
      command: [process.execPath, BUNDLE],
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
