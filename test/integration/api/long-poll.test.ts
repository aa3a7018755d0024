import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
