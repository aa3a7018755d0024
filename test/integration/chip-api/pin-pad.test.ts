/**
 * Issue 16 "PIN-pad readers": a token whose reader has a PIN pad (CKF_PROTECTED_AUTHENTICATION_PATH)
 * gets its logins, both kinds, with a NULL PIN, so the person types it on the reader. SoftHSM2 has
 * no PIN pad: test/helpers/pinpad-shim/ (built here with gcc) forwards to it, reports the flag,
 * refuses a PIN that arrives non-NULL, and plays the person with a keypad file.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPinpadShim, clearKeypad, NEVER, pinpadEnv, shimLog, type } from '../../helpers/pinpad-shim';
import { type authed, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { filesContaining } from '../cli/_cli-expect';
import { initChip, newWrapper, onePagePdfBase64, startWithChip, type ChipCredential } from './_chip-service';
import { tempDir } from '../../helpers/temp-dir';

describe('a reader with a PIN pad', () => {
  const home = makeTmpHome();
  const scratch = tempDir('localsign-pin-pad-');
  const keypad = join(scratch, 'keypad');
  const log = join(scratch, 'shim.log');
  let token: SoftHsmToken;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let credentials: ChipCredential[];
  let pdfBase64: string;

  beforeAll(async () => {
    const shim = buildPinpadShim();
    token = await createSoftHsmToken({ label: 'pad-card', alwaysAuth: true });
    const env = { SOFTHSM2_CONF: token.conf, ...pinpadEnv(SOFTHSM_MODULE, keypad, log) };
    initChip(home.home, shim, ['--chip-token', token.label, '--chip-pin-pad'], env);
    // A short request timeout: the person who never types is given up on after it.
    ({ service, call, credentials } = await startWithChip(home.home, newWrapper(home.home), env, ['--request-timeout', '4']));
    pdfBase64 = await onePagePdfBase64();
  }, 120_000);
  afterAll(async () => {
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

  it('init lists the keys without asking the person (no login before a signature)', () => {
    expect(credentials.map((c) => c.type).sort()).toEqual(['evm', 'pades', 'pades']);
    expect(shimLog(log).filter((l) => l.startsWith('C_Login'))).toEqual([]);
  });

  it('signs with the PIN typed on the pad: every login, user and per signature, gets a NULL PIN', async () => {
    type(keypad, token.pin);
    for (const c of credentials.filter((x) => x.type === 'pades')) {
      const result = await waitForResult(call, await submit('/v1/pades/sign', { pdf_base64: pdfBase64, credential_key: c.credential_key }));
      expect(result.status, JSON.stringify(result)).toBe('DONE');
    }
    const wallet = credentials.find((c) => c.type === 'evm')!;
    const hash = '0x' + 'ef'.repeat(32);
    const evm = await waitForResult(call, await submit('/v1/blockchain/sign', { tx_hash: hash, credential_key: wallet.credential_key }));
    expect(evm.status, JSON.stringify(evm)).toBe('DONE');
    expect(recoverAddress(hash, Signature.from({ r: String(evm.r), s: String(evm.s), yParity: Number(evm.y_parity) as 0 | 1 }))).toBe(wallet.address);
    const logins = shimLog(log).filter((l) => l.startsWith('C_Login'));
    // One user login (the session stays logged in), then a context-specific login per signature.
    expect(logins).toEqual(['C_Login user=1 pin=NULL', 'C_Login user=2 pin=NULL', 'C_Login user=2 pin=NULL', 'C_Login user=2 pin=NULL']);
    expect(shimLog(log).filter((l) => l.startsWith('C_Sign'))).toEqual(['C_Sign rv=0x0', 'C_Sign rv=0x0', 'C_Sign rv=0x0']);
    expect(filesContaining(home.home, token.pin)).toEqual([]);
  });

  it('a person who never types: the request stays PENDING, then ends ERROR at its timeout, and the next signature is made', async () => {
    type(keypad, NEVER);
    const wallet = credentials.find((c) => c.type === 'evm')!;
    const t0 = Date.now();
    const id = await submit('/v1/blockchain/sign', { tx_hash: '0x' + '11'.repeat(32), credential_key: wallet.credential_key });
    await new Promise((r) => setTimeout(r, 1500));
    expect(((await (await call(`/v1/results/${id}`)).json()) as { status: string }).status).toBe('PENDING');
    const ended = await waitForResult(call, id, 15_000);
    expect(ended.status).toBe('ERROR');
    expect(ended.error).toBe('signing did not complete within 4 s');
    expect(Date.now() - t0).toBeLessThan(10_000);
    // The wait on the pad was cancelled (its session closed), so the token is free: no hung worker.
    expect(shimLog(log)).toContain('pad user=2 rv=0x50');
    type(keypad, token.pin);
    const next = await waitForResult(call, await submit('/v1/blockchain/sign', { tx_hash: '0x' + '12'.repeat(32), credential_key: wallet.credential_key }));
    expect(next.status, JSON.stringify(next)).toBe('DONE');
    clearKeypad(keypad);
  });

  it('never sends the PIN itself to the reader', () => {
    expect(shimLog(log).filter((l) => l.includes('NON-NULL'))).toEqual([]);
  });
});
