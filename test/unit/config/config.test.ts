import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/config';
import { readEnv, type EnvSnapshot } from '../../../src/config/env';
import { assertPrivateHome, ensureHome } from '../../../src/config/paths';
import { makeTmpHome } from '../../helpers/tmp-home';

const env = (settings: EnvSnapshot['settings'] = {}): EnvSnapshot => ({ userHome: '/home/u', settings, readVar: () => undefined, isTty: false, noColor: false, proxy: { httpProxy: null, httpsProxy: null, noProxy: null } });

describe('buildConfig', () => {
  it('has the CONTRACT defaults', () => {
    const c = buildConfig(env());
    expect(c).toMatchObject({
      home: '/home/u/.localsign',
      host: '127.0.0.1',
      port: 8300,
      maxBodyBytes: 268435456,
      requestTimeoutMs: 600_000,
      retentionMs: 7 * 24 * 3600 * 1000,
      retentionMaxResults: 10_000,
      tsaUrl: null,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('takes env over defaults and flags over env', () => {
    const c = buildConfig(env({ host: '::1', port: '9000', home: '/srv/ls', tsaUrl: 'http://tsa', requestTimeout: '5' }), { port: '9100' });
    expect(c).toMatchObject({ host: '::1', port: 9100, home: '/srv/ls', tsaUrl: 'http://tsa', requestTimeoutMs: 5000 });
  });

  it('takes --pades-level and --receive-listen from env too, and refuses a level the TSA settings cannot give', () => {
    const fromEnv = buildConfig(readEnv({ LOCALSIGN_SERVICE_FILE: '', LOCALSIGN_HOME: '/srv/ls', LOCALSIGN_PADES_LEVEL: 'b-lta', LOCALSIGN_TSA_URL: 'http://tsa.example', LOCALSIGN_RECEIVE_LISTEN: '0.0.0.0:9443' }));
    expect(fromEnv).toMatchObject({ padesLevel: 'B-LTA', receiveListen: { host: '0.0.0.0', port: 9443 } });
    expect(buildConfig(env({ tsaUrl: 'http://tsa' }))).toMatchObject({ padesLevel: 'B-T', receiveListen: null });
    expect(buildConfig(env())).toMatchObject({ padesLevel: 'B-B' });
    expect(buildConfig(env({ tsaUrl: 'http://tsa' }), { padesLevel: 'B-B' })).toMatchObject({ padesLevel: 'B-B' });
    expect(() => buildConfig(env(), { padesLevel: 'B-LT' })).toThrow('--pades-level B-LT needs a timestamp authority (--tsa-url or LOCALSIGN_TSA_URL)');
    expect(() => buildConfig(env({ tsaUrl: 'http://tsa' }), { padesLevel: 'B-X' })).toThrow('--pades-level must be one of B-B, B-T, B-LT, B-LTA, got "B-X"');
  });

  it('refuses a malformed port, naming it', () => {
    expect(() => buildConfig(env({ port: '80a' }))).toThrow('port must be an integer from 0 to 65535, got "80a"');
    expect(() => buildConfig(env(), { port: '70000' })).toThrow(/port must be an integer/);
  });

  it('has no test fault unless LOCALSIGN_TEST_FAULT names a known one (tests only)', () => {
    expect(buildConfig(env()).testFault).toBeNull();
    expect(buildConfig(env({ testFault: 'kill-in-job' })).testFault).toBe('kill-in-job');
    expect(() => buildConfig(env({ testFault: 'abort' }))).toThrow('LOCALSIGN_TEST_FAULT must be one of kill-in-job, kill-after-audit (tests only), got "abort"');
  });
});

describe('issue 10 settings: remote bind, rate limit, slow-client timeouts', () => {
  it('defaults: loopback only, no rate limit, 10 s for headers, 30 s of body silence', () => {
    expect(buildConfig(env())).toMatchObject({ allowRemote: false, rateLimit: null, headerTimeoutMs: 10_000, bodyTimeoutMs: 30_000 });
  });

  it('takes them from env and flags; the burst defaults to two seconds of the rate', () => {
    const c = buildConfig(env({ allowRemote: true, rateLimit: '50', headerTimeout: '3' }), { bodyTimeout: '4' });
    expect(c).toMatchObject({ allowRemote: true, rateLimit: { perSecond: 50, burst: 100 }, headerTimeoutMs: 3000, bodyTimeoutMs: 4000 });
    expect(buildConfig(env(), { rateLimit: '5', rateBurst: '1' }).rateLimit).toEqual({ perSecond: 5, burst: 1 });
    expect(buildConfig(env(), { rateLimit: '0', rateBurst: '9' }).rateLimit).toBeNull();
  });

  it('refuses malformed values, naming them', () => {
    expect(() => buildConfig(env(), { rateLimit: '1.5' })).toThrow('rate limit (requests per second) must be an integer from 0 to 1000000, got "1.5"');
    expect(() => buildConfig(env(), { headerTimeout: '0' })).toThrow('header timeout (seconds) must be an integer from 1 to 3600, got "0"');
    expect(() => buildConfig(env(), { bodyTimeout: 'x' })).toThrow('body timeout (seconds) must be an integer from 1 to 3600, got "x"');
  });
});

describe('config dir permissions', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  afterEach(() => tmp.cleanup());

  it('creates 0700 and refuses a dir or secret file others can read, naming the fix', () => {
    tmp = makeTmpHome();
    const home = join(tmp.home, 'h');
    ensureHome(home);
    expect(() => assertPrivateHome(home)).not.toThrow();
    chmodSync(home, 0o755);
    expect(() => assertPrivateHome(home)).toThrow(`${home} is accessible by other users (mode 755); fix it with: chmod 700 ${home}`);
    chmodSync(home, 0o700);
    writeFileSync(join(home, 'wrappers.json'), '{}', { mode: 0o644 });
    expect(() => assertPrivateHome(home)).toThrow(`fix it with: chmod 600 ${join(home, 'wrappers.json')}`);
    mkdirSync(join(home, 'x'));
  });
});

describe('retention (CONTRACT: 7 days or 10,000 results, configurable)', () => {
  it('takes days and a count from flags or env', () => {
    expect(buildConfig(env())).toMatchObject({ retentionMs: 604_800_000, retentionMaxResults: 10_000 });
    expect(buildConfig(env({ retentionDays: '2', retentionMax: '500' }))).toMatchObject({ retentionMs: 172_800_000, retentionMaxResults: 500 });
    expect(buildConfig(env({ retentionDays: '2' }), { retentionDays: '1' }).retentionMs).toBe(86_400_000);
    expect(() => buildConfig(env({ retentionMax: '0' }))).toThrow('retention (results) must be an integer from 1 to 1000000, got "0"');
  });
});
