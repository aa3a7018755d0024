/**
 * Issue 16 "Cards that come and go": the token pulled out while the service runs (its SoftHSM2
 * directory moved away) and put back. A request during the absence ends ERROR naming the token,
 * /health says the chip is absent, and the first request after the token is back is DONE, with no
 * restart and no operator act.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type authed, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { initChip, newWrapper, startWithChip, type ChipCredential } from './_chip-service';

describe('a card pulled out and put back while the service runs', () => {
  const home = makeTmpHome();
  let token: SoftHsmToken;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let wallet: string;

  beforeAll(async () => {
    token = await createSoftHsmToken({ label: 'comes-and-goes' });
    const env = { SOFTHSM2_CONF: token.conf, LOCALSIGN_CHIP_PIN: token.pin };
    initChip(home.home, SOFTHSM_MODULE, ['--chip-token', token.label, '--chip-pin-env', 'LOCALSIGN_CHIP_PIN'], env);
    let credentials: ChipCredential[];
    ({ service, call, credentials } = await startWithChip(home.home, newWrapper(home.home), env));
    wallet = credentials.find((c) => c.type === 'evm')!.credential_key;
  });
  afterAll(async () => {
    await service?.stop();
    await token?.cleanup();
    home.cleanup();
  });

  const signOnce = async (n: number): Promise<Record<string, unknown>> => {
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: '0x' + n.toString(16).padStart(2, '0').repeat(32), credential_key: wallet }) });
    expect(res.status).toBe(202);
    return waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
  };
  const chipState = async () => ((await (await fetch(`${service.url}/health`)).json()) as { chip: string | null }).chip;

  it('signs while the card is in; /health says present', async () => {
    expect((await signOnce(1)).status).toBe('DONE');
    expect(await chipState()).toBe('present');
  });

  it('pulled out: a request ends ERROR naming the token, and /health says absent', async () => {
    await token.unplug();
    const result = await signOnce(2);
    expect(result.status).toBe('ERROR');
    expect(String(result.error)).toMatch(/'comes-and-goes'/);
    expect(String(result.error)).toMatch(/not present|removed|no longer valid/);
    expect(await chipState()).toBe('absent');
    // Still absent: each request tries once and ends, none waits or loops.
    const t0 = Date.now();
    expect((await signOnce(3)).status).toBe('ERROR');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('put back: the first request after is DONE, and /health says present again', async () => {
    await token.plug();
    const result = await signOnce(4);
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    expect(await chipState()).toBe('present');
  });
});
