import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallPdf } from '../../helpers/api-fixtures';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

describe('GET /v1/results/{id}?wait=N (long poll)', () => {
  const home = makeTmpHome();
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let evm: string;

  beforeAll(async () => {
    const wrapper = initEmbeddedWithWrapper(home.home);
    service = await startServiceProcess({ home: home.home });
    call = authed(service.url, wrapper);
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string }[] }).credentials;
    evm = creds.find((c) => c.type === 'evm')!.credential_key;
  });
  afterAll(async () => {
    await service.stop();
    home.cleanup();
  });

  it('answers the final result on the first read, right after the 202', async () => {
    for (let i = 0; i < 20; i += 1) {
      const post = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: i.toString(16).padStart(64, '0'), credential_key: evm }) });
      expect(post.status).toBe(202);
      const { request_id } = (await post.json()) as { request_id: string };
      const res = await call(`/v1/results/${request_id}?wait=10`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('DONE');
    }
  });

  it('refuses a malformed wait with 422 naming it, before looking the id up', async () => {
    for (const bad of ['-1', '1.5', '', 'x', '1&wait=2']) {
      const res = await call(`/v1/results/req_unknown?wait=${bad}`);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: string }).error).toMatch(/^wait must be/);
    }
  });

  it('still answers 404 for an unknown id with a valid wait, without waiting', async () => {
    const t = Date.now();
    const res = await call('/v1/results/req_unknown?wait=30');
    expect(res.status).toBe(404);
    expect(Date.now() - t).toBeLessThan(5000);
  });
});

describe('long poll on a request that takes a while (a timestamp authority that answers slowly)', () => {
  const home = makeTmpHome();
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let pades: string;
  let slowTsa: Server;

  beforeAll(async () => {
    // Answers every timestamp query after 1.5 s with a 503: the request then ends in ERROR.
    slowTsa = createServer((_req, res) => setTimeout(() => res.writeHead(503).end(), 1500));
    await new Promise<void>((r) => slowTsa.listen(0, '127.0.0.1', () => r()));
    const wrapper = initEmbeddedWithWrapper(home.home);
    service = await startServiceProcess({ home: home.home, args: ['--tsa-url', `http://127.0.0.1:${(slowTsa.address() as AddressInfo).port}/`] });
    call = authed(service.url, wrapper);
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string }[] }).credentials;
    pades = creds.find((c) => c.type === 'pades')!.credential_key;
  });
  afterAll(async () => {
    await service.stop();
    await new Promise((r) => slowTsa.close(r));
    home.cleanup();
  });

  const post = async () => {
    const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: (await smallPdf()).toString('base64'), credential_key: pades }) });
    expect(res.status).toBe(202);
    return ((await res.json()) as { request_id: string }).request_id;
  };

  it('holds the answer until the request is final, and no longer than asked', async () => {
    const id = await post();
    expect(((await (await call(`/v1/results/${id}`)).json()) as { status: string }).status).toBe('PENDING');
    const short = Date.now();
    expect(((await (await call(`/v1/results/${id}?wait=1`)).json()) as { status: string }).status).toBe('PENDING');
    expect(Date.now() - short).toBeGreaterThanOrEqual(900);
    const long = Date.now();
    const final = (await (await call(`/v1/results/${id}?wait=10`)).json()) as { status: string; error: string };
    expect(final.status).toBe('ERROR');
    expect(final.error).toMatch(/timestamp/i);
    expect(Date.now() - long).toBeLessThan(5000);
  });
});
