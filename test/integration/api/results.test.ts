import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther, parseUnits, recoverAddress, Signature, Transaction } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, HASH_A, ISO_UTC, postJson, type Call } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * CONTRACT GET /v1/results/{id} (blockchain DONE shape, EIP-155 v, low-s), GET /v1/results
 * (entries, newest first, limit) and GET /v1/errors (limit): through ethers, which must put the
 * signature into real transactions whose sender is the credential's address.
 */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let creds: { key: string; secret: string };
let call: Call;
let evm: { credential_key: string; address: string };

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-results-');
  creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  const c = (await credentialKeys(call)).all.find((x) => x.type === 'evm')!;
  evm = { credential_key: c.credential_key as string, address: c.address as string };
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = (requestId: string | null = null) => ({ home: tmp.home, reader: call, requestId });

async function signHash(txHash: string, chainId?: number | null): Promise<Record<string, unknown>> {
  const res = await postJson(call, '/v1/blockchain/sign', { tx_hash: txHash, credential_key: evm.credential_key, ...(chainId === undefined ? {} : { chain_id: chainId }) });
  expect(res.status).toBe(202);
  const { request_id: id } = (await res.json()) as { request_id: string };
  return waitForResult(call, id);
}

function expectDoneShape(result: Record<string, unknown>, chainId: number | null): number {
  expect(Object.keys(result).sort()).toEqual(['address', 'chain_id', 'r', 's', 'request_id', 'status', 'v', 'y_parity'].sort());
  expect(result.status).toBe('DONE');
  expect(result.r).toMatch(/^0x[0-9a-f]{64}$/);
  expect(result.s).toMatch(/^0x[0-9a-f]{64}$/);
  // EIP-2: low-s.
  expect(BigInt(result.s as string) <= SECP256K1_N / 2n).toBe(true);
  expect(BigInt(result.s as string) > 0n).toBe(true);
  const y = result.y_parity as number;
  expect([0, 1]).toContain(y);
  expect(result.v).toBe(chainId === null ? 27 + y : chainId * 2 + 35 + y);
  expect(result.address).toBe(evm.address);
  expect(result.chain_id).toBe(chainId);
  return y;
}

describe('blockchain DONE', () => {
  it('without chain_id: v = 27 + y_parity, chain_id null; ethers recovers the address', async () => {
    for (const hash of [HASH_A, '0x' + '00'.repeat(31) + '01', '0x' + 'ff'.repeat(32)]) {
      const result = await signHash(hash);
      expectDoneShape(result, null);
      const sig = Signature.from({ r: result.r as string, s: result.s as string, v: result.v as number });
      expect(recoverAddress(hash, sig)).toBe(evm.address);
    }
  });

  it('with chain_id (1 and the largest): v = chain_id * 2 + 35 + y_parity; null chain_id = absent', async () => {
    for (const chainId of [1, 4503599627370476]) {
      const result = await signHash(HASH_A, chainId);
      const y = expectDoneShape(result, chainId);
      expect(Number.isSafeInteger(result.v)).toBe(true);
      const sig = Signature.from({ r: result.r as string, s: result.s as string, yParity: y as 0 | 1 });
      expect(recoverAddress(HASH_A, sig)).toBe(evm.address);
    }
    expectDoneShape(await signHash(HASH_A, null), null);
  });

  it('a legacy EIP-155 transaction and an EIP-1559 transaction signed through the API', async () => {
    const legacy = Transaction.from({
      type: 0,
      chainId: 11155111,
      nonce: 3,
      gasPrice: parseUnits('2', 'gwei'),
      gasLimit: 21000,
      to: '0x3535353535353535353535353535353535353535',
      value: parseEther('0.01'),
      data: '0x',
    });
    const l = await signHash(legacy.unsignedHash, 11155111);
    expectDoneShape(l, 11155111);
    const signedLegacy = Transaction.from({ ...legacy.toJSON(), signature: { r: l.r as string, s: l.s as string, v: l.v as number } });
    const parsedLegacy = Transaction.from(signedLegacy.serialized);
    expect(parsedLegacy.from).toBe(evm.address);
    expect(parsedLegacy.signature?.networkV).toBe(BigInt(l.v as number));

    const eip1559 = Transaction.from({
      type: 2,
      chainId: 1,
      nonce: 9,
      maxFeePerGas: parseUnits('30', 'gwei'),
      maxPriorityFeePerGas: parseUnits('1', 'gwei'),
      gasLimit: 50000,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      data: '0xabcdef',
    });
    // Typed transactions carry y_parity, not an EIP-155 v: sign without chain_id and use y_parity.
    const t = await signHash(eip1559.unsignedHash.toUpperCase().replace('0X', '0x'));
    expectDoneShape(t, null);
    const signed1559 = Transaction.from({ ...eip1559.toJSON(), signature: { r: t.r as string, s: t.s as string, yParity: t.y_parity as 0 | 1 } });
    const parsed1559 = Transaction.from(signed1559.serialized);
    expect(parsed1559.from).toBe(evm.address);
    expect(parsed1559.type).toBe(2);
  });

  it('every signature appends an audit record', async () => {
    const result = await signHash('0X' + 'CD'.repeat(32), 5);
    const lines = readFileSync(join(tmp.home, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const rec = lines.find((l) => l.request_id === result.request_id);
    expect(rec).toEqual({ ts: expect.stringMatching(ISO_UTC), request_id: result.request_id, wrapper_key: creds.key, credential_key: evm.credential_key, kind: 'blockchain', digest: 'cd'.repeat(32), outcome: 'DONE' });
  });

  it('an unknown id, or another wrapper\'s id, is 404', async () => {
    // Not a request of this application (none at all): the record carries no request id.
    await expectError(await call('/v1/results/req_doesNotExist'), 404, 'no request req_doesNotExist', where());
    const mine = (await (await call('/v1/results?limit=1')).json()) as { results: { request_id: string }[] };
    const id = mine.results[0]!.request_id;
    const other = authed(svc.url, parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: tmp.home })));
    // Another application's 404 is its own record, without A's request id, and A never sees it.
    await expectError(await other(`/v1/results/${id}`), 404, `no request ${id}`, { ...where(), owner: 'other' });
    expect(await (await other('/v1/results')).json()).toEqual({ results: [] });
  });
});

describe('GET /v1/results and GET /v1/errors: order and limit', () => {
  let created: string[] = [];

  beforeAll(async () => {
    // More than the default 50, cheaply: blockchain signs, accepted back to back.
    created = [];
    for (let i = 0; i < 56; i++) {
      const hash = '0x' + i.toString(16).padStart(64, '0');
      const res = await postJson(call, '/v1/blockchain/sign', { tx_hash: hash, credential_key: evm.credential_key });
      created.push(((await res.json()) as { request_id: string }).request_id);
    }
    // Listed at once, some may still be PENDING: then completed_at is null (CONTRACT), else ISO.
    const early = ((await (await call('/v1/results?limit=1000')).json()) as { results: Record<string, unknown>[] }).results;
    for (const e of early) expect(e.status === 'PENDING' ? e.completed_at === null : ISO_UTC.test(e.completed_at as string)).toBe(true);
    for (const id of created) await waitForResult(call, id);
  });

  it('newest first, exact entry fields, default 50', async () => {
    const res = await call('/v1/results');
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: Record<string, unknown>[] };
    expect(results).toHaveLength(50);
    expect(results.map((r) => r.request_id)).toEqual([...created].reverse().slice(0, 50));
    for (const r of results) {
      expect(Object.keys(r).sort()).toEqual(['completed_at', 'created_at', 'credential_key', 'kind', 'request_id', 'status'].sort());
      expect(r).toMatchObject({ status: 'DONE', kind: 'blockchain', credential_key: evm.credential_key });
      expect(r.created_at).toMatch(ISO_UTC);
      expect(r.completed_at).toMatch(ISO_UTC);
      expect(Date.parse(r.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(r.created_at as string));
    }
    // Creation times never increase down the list.
    const times = results.map((r) => Date.parse(r.created_at as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('limit: digits only, 0 is 422, above 1000 clamps to 1000', async () => {
    const total = ((await (await call('/v1/results?limit=1000')).json()) as { results: unknown[] }).results.length;
    expect(total).toBeGreaterThan(56);
    expect(total).toBeLessThanOrEqual(1000);
    for (const q of ['5', '005']) {
      const { results } = (await (await call(`/v1/results?limit=${q}`)).json()) as { results: { request_id: string }[] };
      expect(results.map((r) => r.request_id)).toEqual([...created].reverse().slice(0, 5));
    }
    for (const q of ['1001', '99999999999999999999']) {
      const res = await call(`/v1/results?limit=${q}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { results: unknown[] }).results).toHaveLength(total);
    }
    await checkLimitRefusals('/v1/results');
  });

  it('GET /v1/errors: newest first, default 20, the same limit rules', async () => {
    // The refusals themselves are recorded: afterwards there are more than 20 records.
    await checkLimitRefusals('/v1/errors');
    const all = ((await (await call('/v1/errors?limit=1000')).json()) as { errors: Record<string, unknown>[] }).errors;
    expect(all.length).toBeGreaterThan(20);
    const def = ((await (await call('/v1/errors')).json()) as { errors: Record<string, unknown>[] }).errors;
    expect(def).toEqual(all.slice(0, 20));
    const ts = all.map((e) => Date.parse(e.ts as string));
    expect(ts).toEqual([...ts].sort((a, b) => b - a));
    const huge = await call('/v1/errors?limit=99999999999999999999');
    expect(((await huge.json()) as { errors: unknown[] }).errors).toHaveLength(all.length);
  });

  async function checkLimitRefusals(path: string): Promise<void> {
    const digitsOnly = (got: string) => `limit must be a positive integer (digits only), got "${got}"`;
    const cases: [string, string][] = [
      ['limit=0', 'limit must be at least 1'],
      ['limit=000', 'limit must be at least 1'],
      ['limit=-1', digitsOnly('-1')],
      ['limit=%2B5', digitsOnly('+5')],
      ['limit=+5', digitsOnly(' 5')],
      ['limit=1e3', digitsOnly('1e3')],
      ['limit=', digitsOnly('')],
      ['limit', digitsOnly('')],
      ['limit=abc', digitsOnly('abc')],
      ['limit=5.0', digitsOnly('5.0')],
      ['limit=%205', digitsOnly(' 5')],
      ['limit=5&limit=6', 'limit must be given once'],
      ['limit=5&limit=5', 'limit must be given once'],
    ];
    for (const [q, message] of cases) await expectError(await call(`${path}?${q}`), 422, message, where());
  }

  it('after a restart: same entries in the same order, and every result still readable', async () => {
    const before = ((await (await call('/v1/results?limit=1000')).json()) as { results: Record<string, unknown>[] }).results;
    const one = (await (await call(`/v1/results/${created[0]}`)).json()) as Record<string, unknown>;
    expect(await svc.stop()).toBe(0);
    svc = await startServiceProcess({ home: tmp.home });
    call = authed(svc.url, creds);
    expect(((await (await call('/v1/results?limit=1000')).json()) as { results: unknown[] }).results).toEqual(before);
    expect(await (await call(`/v1/results/${created[0]}`)).json()).toEqual(one);
  });
});
