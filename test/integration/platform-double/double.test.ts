/**
 * The platform double itself (test/helpers/platform-double.ts), held to PLATFORM.md: pairing,
 * bearer, catalogue shapes, signatures checked by openssl and ethers, push checked by the
 * service's own verifyPush, polling, and every failure switch doing what it says.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { recoverAddress, getAddress, computeAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatformDouble, waitUntil, type PlatformDouble, type SignResult } from '../../helpers/platform-double';
import { signPush } from '../../../src/platform/remote/push-hmac';
import { startPushReceiver, type PushReceiver } from './receiver';
import { opensslKeyUsage, opensslVerifyDigest } from './verify';

let double: PlatformDouble;
let receiver: PushReceiver;
const MACHINE = { hostname: 'desk-1', os: 'linux', arch: 'x64', version: '0.2.0' };

beforeAll(async () => {
  [double, receiver] = await Promise.all([startPlatformDouble(), startPushReceiver()]);
});
afterAll(async () => {
  await double?.stop();
  await receiver?.close();
});

async function pair(callback_url: string | null): Promise<{ agent_id: string; agent_secret: string }> {
  const pairing_code = await double.control.createPairingCode();
  const res = await double.call('POST', '/agent/v1/pair', { body: { pairing_code, machine: MACHINE, callback_url } });
  expect(res.status).toBe(200);
  return res.body as { agent_id: string; agent_secret: string };
}

const reqId = (): string => `req_${randomBytes(8).toString('hex')}`;

function padesBody(credential_key: string, digest: Buffer, request_id = reqId()) {
  return { request_id, credential_key, kind: 'pades', digest_hex: digest.toString('hex'), digest_algorithm: 'sha256', chain_id: null };
}

async function poll(bearer: string, id: string): Promise<SignResult> {
  return waitUntil(async () => {
    const res = await double.call('GET', `/agent/v1/results/${id}`, { bearer });
    expect(res.status).toBe(200);
    const body = res.body as SignResult;
    return body.status === 'PENDING' ? null : body;
  }, 10_000, `result of ${id}`);
}

describe('pairing and bearer', () => {
  it('pairs once per code, refuses a used or unknown code and records the machine', async () => {
    const pairing_code = await double.control.createPairingCode('CODE-ONE');
    const body = { pairing_code, machine: MACHINE, callback_url: 'http://127.0.0.1:9/receive' };
    const first = await double.call('POST', '/agent/v1/pair', { body });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body as object).sort()).toEqual(['agent_id', 'agent_secret', 'tenant_id']);
    expect((first.body as { tenant_id: number }).tenant_id).toBe(4242);
    expect((await double.call('POST', '/agent/v1/pair', { body })).status).toBe(401);
    expect((await double.call('POST', '/agent/v1/pair', { body: { ...body, pairing_code: 'NOPE' } })).status).toBe(401);
    expect((await double.call('POST', '/agent/v1/pair', { body: { pairing_code: 'x', machine: MACHINE } })).status).toBe(400);
    const calls = await double.control.pairCalls();
    expect(calls.filter((c) => (c.body as { pairing_code?: string }).pairing_code === 'CODE-ONE').map((c) => c.status)).toEqual([200, 401]);
    const agent = (await double.control.agents()).find((a) => a.agent_id === (first.body as { agent_id: string }).agent_id)!;
    expect(agent).toMatchObject({ machine: MACHINE, callback_url: 'http://127.0.0.1:9/receive', revoked: false });
  });

  it('answers 401 without a bearer, with an unknown one, and after revocation', async () => {
    const a = await pair(null);
    const b = await pair(null);
    expect((await double.call('GET', '/agent/v1/credentials')).status).toBe(401);
    expect((await double.call('GET', '/agent/v1/credentials', { bearer: 'asec_unknown' })).status).toBe(401);
    expect((await double.call('GET', '/agent/v1/credentials', { bearer: a.agent_secret })).status).toBe(200);
    await double.control.revokeAgent(a.agent_id);
    const revoked = await double.call('GET', '/agent/v1/designs', { bearer: a.agent_secret });
    expect([revoked.status, revoked.body]).toEqual([401, { error: 'pairing revoked' }]);
    expect((await double.call('GET', '/agent/v1/designs', { bearer: b.agent_secret })).status).toBe(200);
    expect((await double.call('GET', '/agent/v1/nothing', { bearer: b.agent_secret })).status).toBe(404);
    const log = await double.control.log();
    expect(log.every((e) => !('authorization' in e.headers))).toBe(true);
    expect(log.some((e) => e.agent_id === b.agent_id && e.path === '/agent/v1/designs' && e.status === 200)).toBe(true);
  });
});

describe('catalogue', () => {
  it('serves credentials with signer-first chains under one root, and designs with stamps', async () => {
    const { agent_secret } = await pair(null);
    const creds = (await double.call('GET', '/agent/v1/credentials', { bearer: agent_secret })).body as { credentials: Record<string, unknown>[] };
    expect(creds.credentials.map((c) => [c.type, c.engine])).toEqual([['pades', 'platform'], ['pades', 'platform'], ['evm', 'platform']]);
    const rootDer = readFileSync(double.rootDerPath);
    for (const c of creds.credentials.slice(0, 2)) {
      const chain = (c.certificate_chain as string[]).map((b) => new X509Certificate(Buffer.from(b, 'base64')));
      expect(chain).toHaveLength(3);
      expect(chain[0]!.checkIssued(chain[1]!) && chain[1]!.checkIssued(chain[2]!)).toBe(true);
      expect(chain[0]!.verify(chain[1]!.publicKey) && chain[1]!.verify(chain[2]!.publicKey)).toBe(true);
      expect(chain[2]!.raw.equals(rootDer)).toBe(true);
      expect([chain[0]!.ca, chain[1]!.ca]).toEqual([false, true]);
      const ext = await opensslKeyUsage((c.certificate_chain as string[])[0]!);
      expect(ext).toMatch(/critical\s+Digital Signature, Non Repudiation/);
      expect(ext).not.toMatch(/Extended Key Usage/);
    }
    const algs = creds.credentials.slice(0, 2).map((c) => new X509Certificate(Buffer.from((c.certificate_chain as string[])[0]!, 'base64')).publicKey.asymmetricKeyDetails);
    expect(algs).toEqual([{ modulusLength: 2048, publicExponent: 65537n }, { namedCurve: 'prime256v1' }]);
    const wallet = creds.credentials[2]!;
    expect(wallet.address).toBe(getAddress(String(wallet.address).toLowerCase()));
    expect(wallet.address).toBe(computeAddress(`0x${double.keys.wallet.private_key_hex}`));
    const designs = (await double.call('GET', '/agent/v1/designs', { bearer: agent_secret })).body as { designs: { stamp: Record<string, unknown> }[] };
    expect(designs.designs[0]!.stamp).toMatchObject({ page: 'last', lines: [{ text: 'Signed on the platform by {{signer_name}}', size: 10 }, expect.anything()] });
    expect(designs.designs[1]!.stamp.image_png_base64).toMatch(/^iVBORw0KGgo/);
  });

  it('serves catalogue edits made through the control API', async () => {
    const { agent_secret } = await pair(null);
    const [design] = await double.control.designs();
    await double.control.upsertDesign({ ...design!, stamp: { ...design!.stamp, lines: [{ text: 'Changed {{date}}', size: 9 }] } });
    await double.control.upsertCredential({ credential_key: 'chip-1', type: 'pades', name: 'On the chip', engine: 'chip',
      default_design_key: null, certificate_chain: double.keys.rsa.chain_base64, chip_key_id: 'a1b2' });
    const designs = (await double.call('GET', '/agent/v1/designs', { bearer: agent_secret })).body as { designs: { stamp: { lines: unknown } }[] };
    expect(designs.designs[0]!.stamp.lines).toEqual([{ text: 'Changed {{date}}', size: 9 }]);
    const creds = (await double.call('GET', '/agent/v1/credentials', { bearer: agent_secret })).body as { credentials: { chip_key_id?: string }[] };
    expect(creds.credentials.at(-1)!.chip_key_id).toBe('a1b2');
    const sign = await double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body: padesBody('chip-1', randomBytes(32)) });
    expect(sign.status).toBe(400);
    await double.control.deleteCredential('chip-1');
    await double.control.upsertDesign(design!);
  });
});

describe('signing', () => {
  it('signs PAdES digests with RSA and P-256 keys that openssl verifies against the served certificates', async () => {
    const { agent_secret } = await pair(null);
    for (const key of [double.keys.rsa, double.keys.p256]) {
      const digest = randomBytes(32);
      const body = padesBody(key.credential_key, digest);
      const res = await double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body });
      expect([res.status, res.body]).toEqual([202, { accepted: true }]);
      const result = await poll(agent_secret, body.request_id);
      expect(Object.keys(result).sort()).toEqual(['request_id', 'signature_base64', 'status']);
      const sig = Buffer.from((result as { signature_base64: string }).signature_base64, 'base64');
      expect(await opensslVerifyDigest(key.chain_base64[0]!, digest, sig)).toBe(true);
      expect(await opensslVerifyDigest(key.chain_base64[0]!, randomBytes(32), sig)).toBe(false);
    }
  });

  it('signs a transaction hash with the wallet: low-s, recovering to its address', async () => {
    const { agent_secret } = await pair(null);
    const hash = randomBytes(32);
    const body = { request_id: reqId(), credential_key: double.keys.wallet.credential_key, kind: 'blockchain', digest_hex: hash.toString('hex'), digest_algorithm: 'keccak256', chain_id: 1 };
    expect((await double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body })).status).toBe(202);
    const result = (await poll(agent_secret, body.request_id)) as { r: string; s: string; recovery_id: 0 | 1 };
    expect(Object.keys(result).sort()).toEqual(['r', 'recovery_id', 'request_id', 's', 'status']);
    expect(result.r).toMatch(/^0x[0-9a-f]{64}$/);
    expect(BigInt(result.s) <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n).toBe(true);
    expect(recoverAddress(`0x${hash.toString('hex')}`, { r: result.r, s: result.s, yParity: result.recovery_id })).toBe(double.walletAddress);
  });

  it('refuses malformed sign bodies, unknown ids and a reused id with other fields; a retry is not signed twice', async () => {
    const { agent_secret } = await pair(null);
    const body = padesBody(double.keys.rsa.credential_key, randomBytes(32));
    const call = (b: unknown) => double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body: b });
    expect((await call({ ...body, digest_hex: body.digest_hex.toUpperCase() })).status).toBe(400);
    expect((await call({ ...body, kind: 'blockchain' })).status).toBe(400);
    expect((await call({ ...body, extra: 1 })).status).toBe(400);
    expect((await call({ ...body, credential_key: 'nope' })).status).toBe(404);
    expect((await call(body)).status).toBe(202);
    expect((await call(body)).status).toBe(202);
    expect((await call({ ...body, digest_hex: '00'.repeat(32) })).status).toBe(409);
    const record = (await double.control.signRequests()).find((r) => r.request_id === body.request_id)!;
    expect(record.times_received).toBe(3);
    expect((await double.call('GET', '/agent/v1/results/req_never', { bearer: agent_secret })).status).toBe(404);
  });

  it('holds requests PENDING in manual mode until approved or rejected', async () => {
    const { agent_secret } = await pair(null);
    await double.control.setSettings({ approval: { mode: 'manual' } });
    try {
      const a = padesBody(double.keys.p256.credential_key, randomBytes(32));
      const b = padesBody(double.keys.p256.credential_key, randomBytes(32));
      for (const body of [a, b]) await double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body });
      const pending = await double.call('GET', `/agent/v1/results/${a.request_id}`, { bearer: agent_secret });
      expect(pending.body).toEqual({ request_id: a.request_id, status: 'PENDING' });
      await double.control.approve(a.request_id);
      await double.control.reject(b.request_id, 'declined on the phone');
      expect((await poll(agent_secret, a.request_id)).status).toBe('DONE');
      expect(await poll(agent_secret, b.request_id)).toEqual({ request_id: b.request_id, status: 'ERROR', error: 'declined on the phone' });
      await expect(double.control.approve(a.request_id)).rejects.toThrow(/409/);
    } finally {
      await double.control.setSettings({ approval: { mode: 'auto', delay_ms: 0 } });
    }
  });

  it('signs with a key that is not the credential\'s when wrong_key is set', async () => {
    const { agent_secret } = await pair(null);
    await double.control.setSettings({ wrong_key: true });
    try {
      const digest = randomBytes(32);
      const body = padesBody(double.keys.rsa.credential_key, digest);
      await double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body });
      const result = (await poll(agent_secret, body.request_id)) as { status: string; signature_base64: string };
      expect(result.status).toBe('DONE');
      expect(await opensslVerifyDigest(double.keys.rsa.chain_base64[0]!, digest, Buffer.from(result.signature_base64, 'base64'))).toBe(false);
      const hash = randomBytes(32);
      const evm = { request_id: reqId(), credential_key: double.keys.wallet.credential_key, kind: 'blockchain', digest_hex: hash.toString('hex'), digest_algorithm: 'keccak256', chain_id: null };
      await double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body: evm });
      const sig = (await poll(agent_secret, evm.request_id)) as { r: string; s: string; recovery_id: 0 | 1 };
      expect(recoverAddress(`0x${hash.toString('hex')}`, { r: sig.r, s: sig.s, yParity: sig.recovery_id })).not.toBe(double.walletAddress);
    } finally {
      await double.control.setSettings({ wrong_key: false });
    }
  });
});

describe('push', () => {
  async function signPushed(mode: 'normal' | 'duplicate' | 'stale' | 'forged', pushEnabled = true) {
    const agent = await pair(receiver.url);
    receiver.secret = agent.agent_secret;
    await double.control.setSettings({ push_mode: mode, push_enabled: pushEnabled });
    const before = receiver.deliveries.length;
    const body = padesBody(double.keys.rsa.credential_key, randomBytes(32));
    await double.call('POST', '/agent/v1/sign', { bearer: agent.agent_secret, body });
    const result = await poll(agent.agent_secret, body.request_id);
    const attempts = pushEnabled
      ? await waitUntil(async () => {
        const mine = (await double.control.pushes()).filter((p) => p.request_id === body.request_id);
        return mine.length === (mode === 'duplicate' ? 2 : 1) && mine;
      }, 10_000, 'push attempts')
      : [];
    await double.control.setSettings({ push_mode: 'normal', push_enabled: true });
    return { agent, body, result, attempts, deliveries: receiver.deliveries.slice(before) };
  }

  it('pushes the result, HMAC-signed as verifyPush expects, and records the 200', async () => {
    const { result, attempts, deliveries } = await signPushed('normal');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.verified).toBe(true);
    expect(JSON.parse(deliveries[0]!.raw)).toEqual(result);
    expect(attempts.map((a) => [a.status, a.response_body])).toEqual([[200, '{"ok":true}']]);
  });

  it('duplicate sends the same delivery twice; stale and forged ones fail verifyPush', async () => {
    const dup = await signPushed('duplicate');
    expect(dup.deliveries).toHaveLength(2);
    expect(dup.deliveries[1]).toEqual(dup.deliveries[0]);
    // Stale: a correct HMAC over a timestamp 400 s old. Forged: a fresh timestamp, a wrong HMAC.
    const hmacOk = (r: Awaited<ReturnType<typeof signPushed>>) =>
      signPush(r.agent.agent_secret, r.deliveries[0]!.timestamp!, Buffer.from(r.deliveries[0]!.raw)) === r.deliveries[0]!.signature;
    const stale = await signPushed('stale');
    expect([stale.deliveries[0]!.verified, stale.attempts[0]!.status, hmacOk(stale)]).toEqual([false, 401, true]);
    expect(Number(stale.deliveries[0]!.timestamp)).toBeLessThan(Date.now() / 1000 - 390);
    const forged = await signPushed('forged');
    expect([forged.deliveries[0]!.verified, forged.attempts[0]!.status, hmacOk(forged)]).toEqual([false, 401, false]);
    expect(Math.abs(Number(forged.deliveries[0]!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('push disabled: nothing is delivered, the result waits for the poll; re-push delivers on demand', async () => {
    const { agent, body, result, deliveries } = await signPushed('normal', false);
    expect(result.status).toBe('DONE');
    expect(deliveries).toHaveLength(0);
    expect((await double.control.pushes()).filter((p) => p.request_id === body.request_id)).toEqual([]);
    const [again] = await double.control.push(body.request_id, { url: receiver.url });
    expect(again!.status).toBe(200);
    await double.control.setCallbackUrl(agent.agent_id, 'http://127.0.0.1:9/gone');
    const [lost] = await double.control.push(body.request_id);
    expect([lost!.status, lost!.error]).toEqual([null, 'ECONNREFUSED']);
  });
});

describe('failure switches and incidents', () => {
  it('injects statuses, drops, drop-after-work and hangs, per path and for a number of calls', async () => {
    const { agent_secret } = await pair(null);
    await double.control.addFault({ path: 'credentials', action: 500, times: 2 });
    await double.control.addFault({ path: '*', action: 503, times: 1 });
    expect((await double.call('GET', '/agent/v1/designs', { bearer: agent_secret })).status).toBe(503);
    expect((await double.call('GET', '/agent/v1/credentials', { bearer: agent_secret })).status).toBe(500);
    expect((await double.call('GET', '/agent/v1/credentials', { bearer: agent_secret })).status).toBe(500);
    expect((await double.call('GET', '/agent/v1/credentials', { bearer: agent_secret })).status).toBe(200);
    await double.control.addFault({ path: 'designs', action: 'drop', times: 1 });
    await expect(double.call('GET', '/agent/v1/designs', { bearer: agent_secret })).rejects.toMatchObject({ code: 'ECONNRESET' });
    const body = padesBody(double.keys.rsa.credential_key, randomBytes(32));
    await double.control.addFault({ path: 'sign', action: 'drop-after', times: 1 });
    await expect(double.call('POST', '/agent/v1/sign', { bearer: agent_secret, body })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect((await double.control.signRequests()).some((r) => r.request_id === body.request_id)).toBe(true);
    await double.control.addFault({ path: 'results', action: 'hang' });
    const hung = double.call('GET', `/agent/v1/results/${body.request_id}`, { bearer: agent_secret, timeoutMs: 500 });
    await expect(hung).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    await double.control.clearFaults();
    expect((await double.call('GET', `/agent/v1/results/${body.request_id}`, { bearer: agent_secret })).status).toBe(200);
    const faults = (await double.control.log()).map((e) => e.fault).filter(Boolean);
    expect(faults).toEqual([503, 500, 500, 'drop', 'drop-after', 'hang']);
  });

  it('stores incidents and answers an incident_id', async () => {
    const { agent_id, agent_secret } = await pair(null);
    const body = { request_id: 'req_x', errors: [{ error_id: 'err_1', traceback: 'Error: boom\n    at x' }] };
    const res = await double.call('POST', '/agent/v1/incidents', { bearer: agent_secret, body });
    expect(res.status).toBe(200);
    const { incident_id } = res.body as { incident_id: string };
    expect(await double.control.incidents()).toContainEqual(expect.objectContaining({ incident_id, agent_id, body }));
    expect((await double.call('POST', '/agent/v1/incidents', { bearer: agent_secret, body: { errors: [] } })).status).toBe(400);
  });
});
