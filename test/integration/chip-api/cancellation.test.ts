/**
 * Issue 18, cancellation end to end: "a request that times out while queued is still signed by
 * the token after it has ended ERROR". The token is held busy by a PIN-pad login whose reader does
 * not cancel when its request ends (test/helpers/pinpad-shim, keypad `hold`), so the requests
 * behind it time out while they wait in the chip's queue. They must end ERROR at their timeout
 * while the token is still held, and never reach it: OpenSC's spy, in front of the shim, shows no
 * C_SignInit and no C_Sign for them, and the one C_Sign it shows is the one signature that ended
 * DONE afterwards. Margins are wide: the timeouts are the service's, the waits are polls.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPinpadShim, HOLD, pinpadEnv, shimLog, type } from '../../helpers/pinpad-shim';
import { PKCS11_SPY, spyCalls, spyEnv } from '../../helpers/pkcs11-spy';
import { type authed, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { initChip, newWrapper, onePagePdfBase64, startWithChip, type ChipCredential } from './_chip-service';
import { tempDir } from '../../helpers/temp-dir';

const TIMEOUT_S = 5;

describe('a request that times out behind a busy token', () => {
  const home = makeTmpHome();
  // Outside the config dir: the spy logs what it passes on.
  const scratch = tempDir('localsign-cancellation-');
  const keypad = join(scratch, 'keypad');
  const log = join(scratch, 'shim.log');
  const spyLog = join(scratch, 'spy.log');
  let token: SoftHsmToken;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let credentials: ChipCredential[];
  let pdfBase64: string;

  beforeAll(async () => {
    const shim = buildPinpadShim();
    token = await createSoftHsmToken({ label: 'busy-card' });
    // The service -> the spy (logs every call) -> the shim (the PIN pad) -> SoftHSM2.
    const env = { SOFTHSM2_CONF: token.conf, ...pinpadEnv(SOFTHSM_MODULE, keypad, log), ...spyEnv(shim, spyLog) };
    initChip(home.home, PKCS11_SPY, ['--chip-token', token.label, '--chip-pin-pad'], env);
    ({ service, call, credentials } = await startWithChip(home.home, newWrapper(home.home), env, ['--request-timeout', String(TIMEOUT_S)]));
    pdfBase64 = await onePagePdfBase64();
  }, 120_000);
  afterAll(async () => {
    // Whatever happened, the reader lets go (C_Finalize at stop ends a held login anyway).
    type(keypad, token?.pin ?? 'x');
    await service?.stop();
    await token?.cleanup();
    rmSync(scratch, { recursive: true, force: true });
    home.cleanup();
  });

  const submit = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const res = await call(path, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(202);
    return ((await res.json()) as { request_id: string }).request_id;
  };
  const until = async (what: string, ok: () => boolean, ms = 30_000): Promise<void> => {
    for (const end = Date.now() + ms; !ok(); ) {
      if (Date.now() > end) throw new Error(`${what} within ${ms} ms; shim log:\n${shimLog(log).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const audit = () =>
    readFileSync(join(home.home, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { request_id: string; kind: string; digest: string | null; outcome: string });

  it('ends ERROR at its timeout while the token is still held, and never reaches the token; the next request signs once', async () => {
    const wallet = credentials.find((c) => c.type === 'evm')!;
    const signer = credentials.find((c) => c.type === 'pades')!;
    type(keypad, HOLD);

    // A: at the pad, where the reader keeps the token past A's own timeout.
    const a = await submit('/v1/blockchain/sign', { tx_hash: '0x' + '21'.repeat(32), credential_key: wallet.credential_key });
    await until('request A at the PIN pad', () => shimLog(log).includes('C_Login user=1 pin=NULL'));

    // B and B': queued behind A in the chip's queue (B' after its prepare in a PDF worker).
    const submitted = Date.now();
    const b = await submit('/v1/blockchain/sign', { tx_hash: '0x' + '22'.repeat(32), credential_key: wallet.credential_key });
    const bPdf = await submit('/v1/pades/sign', { pdf_base64: pdfBase64, credential_key: signer.credential_key });
    for (const id of [a, b, bPdf]) {
      const ended = await waitForResult(call, id, 60_000);
      expect({ id, status: ended.status, error: ended.error }).toEqual({ id, status: 'ERROR', error: `signing did not complete within ${TIMEOUT_S} s` });
    }
    // Ended at their timeout, not when the token came free: it is still held, A's login still waits.
    expect(Date.now() - submitted).toBeLessThan((TIMEOUT_S + 25) * 1000);
    expect(shimLog(log).filter((l) => l.startsWith('pad user=1'))).toEqual([]);
    expect([spyCalls(spyLog, 'C_SignInit'), spyCalls(spyLog, 'C_Sign')]).toEqual([0, 0]);

    // The person acts: the reader reports A's cancelled login; nothing that ended signs now.
    type(keypad, token.pin);
    await until("A's login returned", () => shimLog(log).includes('pad user=1 rv=0x50'));

    // The next request finds the token free and signs: one C_SignInit, one C_Sign, one DONE.
    const c = await submit('/v1/blockchain/sign', { tx_hash: '0x' + '23'.repeat(32), credential_key: wallet.credential_key });
    const done = await waitForResult(call, c, 60_000);
    expect(done.status, JSON.stringify(done)).toBe('DONE');
    expect([spyCalls(spyLog, 'C_SignInit'), spyCalls(spyLog, 'C_Sign')]).toEqual([1, 1]);
    expect(shimLog(log).filter((l) => l.startsWith('C_Sign'))).toEqual(['C_Sign rv=0x0']);

    // The audit says what the token did: one DONE, and no signature behind the ERRORs (the PAdES
    // one names no digest: none was signed).
    const records = audit();
    expect(records.filter((r) => r.outcome === 'DONE').map((r) => r.request_id)).toEqual([c]);
    expect(records.filter((r) => r.outcome === 'ERROR').map((r) => r.request_id).sort()).toEqual([a, b, bPdf].sort());
    expect(records.find((r) => r.request_id === bPdf)).toMatchObject({ kind: 'pades', digest: null });
  }, 180_000);
});
