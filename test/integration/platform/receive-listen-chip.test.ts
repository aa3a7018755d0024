import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync } from '../../helpers/cli';
import { startPlatformDouble, waitUntil, type PlatformDouble } from '../../helpers/platform-double';
import { authed, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { accept, finalOf, pairWith, wrapperFor } from './_platform';

const TX = '0x' + 'cd'.repeat(32);

/** Issue 8 "/receive": `serve --receive-listen HOST:PORT` opens a listener that serves only POST /receive. */
describe('serve --receive-listen', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let svc: ServiceProcess;
  let receiveUrl: string;

  beforeAll(async () => {
    double = await startPlatformDouble({ settings: { approval: { mode: 'manual' } } });
    const { agentId } = await pairWith(double, tmp.home);
    svc = await startServiceProcess({ home: tmp.home, args: ['--receive-listen', '127.0.0.1:0'] });
    receiveUrl = await waitUntil(async () => /platform pushes received on (http:\/\/\S+)/.exec(svc.output())?.[1], 5_000, 'the receive listener line');
    await double.control.setCallbackUrl(agentId, receiveUrl);
  });
  afterAll(async () => {
    await svc?.stop();
    await double?.stop();
    tmp.cleanup();
  });

  it('serves POST /receive only: every other path is 404, another method 405, with the error body', async () => {
    const base = receiveUrl.replace(/\/receive$/, '');
    expect(new URL(base).port).not.toBe(new URL(svc.url).port);
    for (const path of ['/health', '/v1/credentials', '/openapi.json', '/']) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(404);
      expect(Object.keys((await res.json()) as object).sort()).toEqual(['error', 'error_id']);
    }
    const get = await fetch(receiveUrl);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const unsigned = await fetch(receiveUrl, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(401);
  });

  it('a push delivered there completes the request', async () => {
    const call = authed(svc.url, wrapperFor(tmp.home));
    const id = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    await waitUntil(async () => (await double.control.signRequests()).some((s) => s.request_id === id), 10_000, 'the sign call');
    await double.control.approve(id);
    const pushes = (await double.control.pushes()).filter((p) => p.request_id === id);
    expect(pushes.map((p) => [p.url, p.status])).toEqual([[receiveUrl, 200]]);
    expect(await finalOf(call, id, 5_000)).toMatchObject({ status: 'DONE', address: double.walletAddress });
  });
});

/** Issue 8 "Catalogue": engine "chip" credentials of a remote tenant sign on this machine's PKCS#11 token. */
describe('engine "chip" credentials from the platform', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let token: SoftHsmToken;
  let svc: ServiceProcess | undefined;

  beforeAll(async () => {
    [double, token] = await Promise.all([startPlatformDouble(), createSoftHsmToken({ keys: ['secp256k1'] })]);
  });
  afterAll(async () => {
    await svc?.stop();
    await double?.stop();
    await token?.cleanup();
    tmp.cleanup();
  });

  it('are matched on the token by chip_key_id and signed there; one the token lacks is left out', async () => {
    const key = token.keys.find((k) => k.algorithm === 'secp256k1')!;
    // The token key's address, as the embedded platform reads it (a throwaway config dir).
    const probe = makeTmpHome();
    const env = { ...token.env, LOCALSIGN_TEST_PIN: token.pin };
    const chipArgs = ['--chip-module', token.modulePath, '--chip-token', token.label, '--chip-pin-env', 'LOCALSIGN_TEST_PIN'];
    let address: string;
    try {
      expect((await runCliAsync(['init', '--embedded', ...chipArgs], { home: probe.home, env })).status).toBe(0);
      const cache = JSON.parse(readFileSync(join(probe.home, 'cache.json'), 'utf8')) as { credentials: { type: string; address?: string }[] };
      address = cache.credentials.find((c) => c.type === 'evm')!.address!;
    } finally {
      probe.cleanup();
    }
    await double.control.upsertCredential({ credential_key: 'chip-wallet', type: 'evm', name: 'Token wallet', engine: 'chip', default_design_key: null, address, chip_key_id: key.id });
    await double.control.upsertCredential({ credential_key: 'other-machine', type: 'evm', name: 'Elsewhere', engine: 'chip', default_design_key: null, address, chip_key_id: 'ffee' });
    const { init } = await pairWith(double, tmp.home, chipArgs, env);
    expect(init).toMatchObject({ chip: 'pkcs11', credentials: 4 });
    svc = await startServiceProcess({ home: tmp.home, env });
    const call = authed(svc.url, wrapperFor(tmp.home));
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; engine: string }[] }).credentials;
    expect(creds.find((c) => c.credential_key === 'chip-wallet')).toMatchObject({ engine: 'chip' });
    expect(creds.find((c) => c.credential_key === 'other-machine')).toBeUndefined();
    const id = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: 'chip-wallet', chain_id: 5 });
    const result = await finalOf(call, id);
    expect(result).toMatchObject({ status: 'DONE', address, chain_id: 5 });
    expect(recoverAddress(TX, Signature.from({ r: String(result.r), s: String(result.s), v: Number(result.v) }))).toBe(address);
    // The chip signed it: the platform never saw this request.
    expect((await double.control.signRequests()).some((s) => s.request_id === id)).toBe(false);
  }, 60_000);
});
