import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallPdf } from '../../helpers/api-fixtures';
import { createNssTrustDb, runPdfsig } from '../../helpers/pdf-tools';
import { startPlatformDouble, waitUntil, type PlatformDouble } from '../../helpers/platform-double';
import { signPush } from '../../../src/platform/remote/push-hmac';
import { authed, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { accept, finalOf, pairWith, wrapperFor, type Call } from './_platform';

const TX = '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';

/**
 * Issue 8 "Remote signing" and "/receive": engine "platform" credentials signed by the platform
 * double, the result arriving by push or by polling, checked before DONE.
 */
describe('signing on the remote platform', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let svc: ServiceProcess;
  let call: Call;
  let agentId: string;
  let nssDir: string;
  let pdf: string;

  beforeAll(async () => {
    double = await startPlatformDouble();
    ({ agentId } = await pairWith(double, tmp.home));
    svc = await startServiceProcess({ home: tmp.home, args: ['--request-timeout', '20'] });
    call = authed(svc.url, wrapperFor(tmp.home));
    const dir = mkdtempSync(join(tmp.home, 'nss-'));
    nssDir = await createNssTrustDb(dir, [readFileSync(double.rootDerPath)]);
    pdf = (await smallPdf('signed on the platform')).toString('base64');
  });
  afterAll(async () => {
    await svc?.stop();
    await double?.stop();
    tmp.cleanup();
  });

  async function checkPdf(result: Record<string, unknown>, name: string): Promise<void> {
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    const file = join(tmp.home, `${name}.pdf`);
    writeFileSync(file, Buffer.from(String(result.pdf_base64), 'base64'));
    const report = await runPdfsig(file, { nssDir });
    expect(report.signatures, report.raw).toHaveLength(1);
    expect(report.signatures[0]!.validation, report.raw).toBe('Signature is Valid.');
    expect(report.signatures[0]!.certificateStatus, report.raw).toBe('Certificate is Trusted.');
  }

  function checkEvm(result: Record<string, unknown>): void {
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    expect(result.address).toBe(double.walletAddress);
    expect(recoverAddress(TX, Signature.from({ r: String(result.r), s: String(result.s), v: Number(result.v) }))).toBe(double.walletAddress);
  }

  async function signAll(tag: string): Promise<Record<string, Record<string, unknown>>> {
    const ids = {
      rsa: await accept(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: double.keys.rsa.credential_key, signer_name: `RSA ${tag}`, design_key: double.keys.designs.standard }),
      p256: await accept(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: double.keys.p256.credential_key, design_key: double.keys.designs.approval, variables: { approval_id: `A-${tag}` } }),
      evm: await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key, chain_id: 1 }),
    };
    return {
      rsa: { id: ids.rsa, ...(await finalOf(call, ids.rsa)) },
      p256: { id: ids.p256, ...(await finalOf(call, ids.p256)) },
      evm: { id: ids.evm, ...(await finalOf(call, ids.evm)) },
    };
  }

  it('by push: PAdES RSA and P-256 (pdfsig trusts them with the double\'s root) and a blockchain signature (ethers recovers it)', async () => {
    await double.control.setCallbackUrl(agentId, `${svc.url}/receive`);
    await double.control.setSettings({ push_enabled: true, push_mode: 'normal', approval: { mode: 'manual' } });
    const ids = {
      rsa: await accept(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: double.keys.rsa.credential_key, signer_name: 'Pushed RSA', design_key: double.keys.designs.standard }),
      evm: await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key, chain_id: 1 }),
    };
    await waitUntil(async () => (await double.control.signRequests()).length >= 2, 10_000, 'both sign calls');
    // Approved on the phone: the platform pushes; the answer is DONE at once, not at the next poll.
    await double.control.approve(ids.rsa);
    await double.control.approve(ids.evm);
    const pushes = await double.control.pushes();
    expect(pushes.filter((p) => p.status === 200).map((p) => p.request_id).sort()).toEqual([ids.rsa, ids.evm].sort());
    await checkPdf(await finalOf(call, ids.rsa, 5_000), 'push-rsa');
    checkEvm(await finalOf(call, ids.evm, 5_000));
    await double.control.setSettings({ approval: { mode: 'auto', delay_ms: 0 } });
    const all = await signAll('push');
    await checkPdf(all.p256!, 'push-p256');
  });

  it('by polling, with pushes disabled (a desktop behind NAT)', async () => {
    await double.control.setSettings({ push_enabled: false, approval: { mode: 'auto', delay_ms: 300 } });
    const before = (await double.control.pushes()).length;
    const all = await signAll('poll');
    await checkPdf(all.rsa!, 'poll-rsa');
    await checkPdf(all.p256!, 'poll-p256');
    checkEvm(all.evm!);
    expect((await double.control.pushes()).length).toBe(before);
    // PLATFORM.md: the digest sent is SHA-256 of the signed attributes, 64 lowercase hex, no 0x.
    const signs = await double.control.signRequests();
    const rsa = signs.find((s) => s.request_id === all.rsa!.id)!;
    expect(rsa.body).toMatchObject({ kind: 'pades', digest_algorithm: 'sha256', chain_id: null, credential_key: double.keys.rsa.credential_key });
    expect(rsa.body.digest_hex).toMatch(/^[0-9a-f]{64}$/);
    expect(signs.find((s) => s.request_id === all.evm!.id)!.body).toMatchObject({ kind: 'blockchain', digest_algorithm: 'keccak256', digest_hex: TX.slice(2), chain_id: 1 });
  });

  it('forged and stale pushes get 401 and change nothing; a duplicate gets 200; the request still completes by polling', async () => {
    await double.control.setSettings({ push_enabled: true, push_mode: 'forged', approval: { mode: 'auto', delay_ms: 0 } });
    const forged = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    checkEvm(await finalOf(call, forged));
    await double.control.setSettings({ push_mode: 'stale' });
    const stale = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    checkEvm(await finalOf(call, stale));
    await double.control.setSettings({ push_mode: 'duplicate' });
    const dup = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    checkEvm(await finalOf(call, dup));
    const pushes = await double.control.pushes();
    const statuses = (id: string) => pushes.filter((p) => p.request_id === id).map((p) => p.status);
    expect(statuses(forged)).toEqual([401]);
    expect(statuses(stale)).toEqual([401]);
    expect(statuses(dup)).toEqual([200, 200]);
    expect(pushes.filter((p) => p.request_id === dup)[1]!.response_body).toBe('{"ok":true,"duplicate":true}');
  });

  it('nothing /receive gets changes a DONE request; an unknown request is 404', async () => {
    const [agent] = (await double.control.agents()).filter((a) => a.agent_id === agentId);
    const done = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    const before = await finalOf(call, done);
    const post = async (body: object) => {
      const raw = JSON.stringify(body);
      const ts = String(Math.floor(Date.now() / 1000));
      return fetch(`${svc.url}/receive`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-platform-timestamp': ts, 'x-platform-signature': signPush(agent!.agent_secret, ts, Buffer.from(raw)) } });
    };
    const late = await post({ request_id: done, status: 'ERROR', error: 'too late' });
    expect(late.status).toBe(200);
    expect(await late.json()).toEqual({ ok: true, duplicate: true });
    expect(await finalOf(call, done)).toEqual(before);
    const unknown = await post({ request_id: 'req_never_made', status: 'ERROR', error: 'x' });
    expect(unknown.status).toBe(404);
  });

  it('a wrong-key signature ends ERROR with a clear message, never DONE', async () => {
    await double.control.setSettings({ push_enabled: false, wrong_key: true, approval: { mode: 'auto', delay_ms: 0 } });
    try {
      const pades = await accept(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: double.keys.p256.credential_key, design_key: double.keys.designs.standard });
      const evm = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
      const p = await finalOf(call, pades);
      const e = await finalOf(call, evm);
      expect(p).toMatchObject({ status: 'ERROR' });
      expect(String(p.error)).toMatch(/^the platform's signature does not verify with the certificate of credential .* \(signed with another key\?\); the document was not signed$/);
      expect(e).toMatchObject({ status: 'ERROR' });
      expect(String(e.error)).toMatch(/^the platform's signature recovers to 0x[0-9a-fA-F]{40}, not to the address .* nothing was signed$/);
    } finally {
      await double.control.setSettings({ wrong_key: false });
    }
  });

  it('a declined request ends ERROR with the platform\'s reason', async () => {
    await double.control.setSettings({ push_enabled: true, approval: { mode: 'manual' } });
    const id = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    await waitUntil(async () => (await double.control.signRequests()).some((s) => s.request_id === id), 10_000, 'the sign call');
    await double.control.reject(id, 'declined on the phone');
    expect(await finalOf(call, id, 5_000)).toMatchObject({ status: 'ERROR', error: 'the platform did not sign: declined on the phone' });
  });
});

describe('a platform answer after a restart, and a platform that never answers', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let svc: ServiceProcess | undefined;

  beforeAll(async () => {
    double = await startPlatformDouble({ settings: { push_enabled: false, approval: { mode: 'manual' } } });
    await pairWith(double, tmp.home);
  });
  afterAll(async () => {
    await svc?.stop();
    await double?.stop();
    tmp.cleanup();
  });

  it('a result approved while the service was down completes the same request after it starts again', async () => {
    svc = await startServiceProcess({ home: tmp.home });
    const wrapper = wrapperFor(tmp.home);
    let call = authed(svc.url, wrapper);
    const pdf = (await smallPdf('approved after a restart')).toString('base64');
    const pades = await accept(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: double.keys.rsa.credential_key, design_key: double.keys.designs.standard });
    const evm = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    await waitUntil(async () => (await double.control.signRequests()).length >= 2, 10_000, 'both sign calls');
    expect(await svc.stop()).toBe(0);
    await double.control.approve(pades);
    await double.control.approve(evm);
    svc = await startServiceProcess({ home: tmp.home });
    expect(svc.output()).toContain('after restart: 2 request(s) resumed, 0 set to ERROR');
    call = authed(svc.url, wrapper);
    const p = await finalOf(call, pades);
    expect(p.status, JSON.stringify(p)).toBe('DONE');
    const dir = mkdtempSync(join(tmp.home, 'nss-'));
    const file = join(dir, 'restart.pdf');
    writeFileSync(file, Buffer.from(String(p.pdf_base64), 'base64'));
    const report = await runPdfsig(file, { nssDir: await createNssTrustDb(dir, [readFileSync(double.rootDerPath)]) });
    expect(report.signatures[0]!.validation, report.raw).toBe('Signature is Valid.');
    expect((await finalOf(call, evm)).status).toBe('DONE');
    // The same digest: the prepared document was kept, not prepared again (one sign call each).
    const signs = await double.control.signRequests();
    expect(signs.find((s) => s.request_id === pades)!.times_received).toBe(1);
    await svc.stop();
    svc = undefined;
  });

  it('the request timeout ends what never completes, and nothing is signed or submitted afterwards', async () => {
    svc = await startServiceProcess({ home: tmp.home, args: ['--request-timeout', '3'] });
    const call = authed(svc.url, wrapperFor(tmp.home));
    // The sign call itself hangs: the digest never reaches the platform within the timeout.
    await double.control.addFault({ path: 'sign', action: 'hang' });
    const hung = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: double.keys.wallet.credential_key });
    await double.control.clearFaults();
    // The sign call answers, but nobody approves: the request waits until its timeout.
    const waiting = await accept(call, '/v1/blockchain/sign', { tx_hash: '0x' + '33'.repeat(32), credential_key: double.keys.wallet.credential_key });
    for (const id of [hung, waiting]) {
      expect(await finalOf(call, id, 15_000)).toMatchObject({ status: 'ERROR', error: 'signing did not complete within 3 s' });
    }
    const count = async () => (await double.control.signRequests()).filter((s) => s.request_id === hung || s.request_id === waiting).reduce((n, s) => n + s.times_received, 0);
    const submitted = await count();
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await count()).toBe(submitted);
    // An approval after the timeout changes nothing.
    await double.control.approve(waiting);
    await new Promise((r) => setTimeout(r, 500));
    expect(await finalOf(call, waiting)).toMatchObject({ status: 'ERROR' });
  }, 60_000);
});
