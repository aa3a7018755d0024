/**
 * Issue 7.4 inside the PKCS#11 bridge: when the token refuses the PIN at a re-login (the device
 * closed the session, and the PIN changed meanwhile), the calls queued behind that login fail
 * with the same error and do not each present the PIN again. pkcs11-spy (OpenSC) in front of
 * SoftHSM2 counts the C_Login calls.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadPkcs11Module } from '../../../src/chip/loader';
import { isPinRejection } from '../../../src/chip/pin-rejection';
import { bindFunctionList } from '../../../src/chip/pkcs11/bindings';
import { createPkcs11Chip } from '../../../src/chip/pkcs11';
import { findToken } from '../../../src/chip/pkcs11/token-discovery';
import { PKCS11_SPY, spyCalls, spyEnv } from '../../helpers/pkcs11-spy';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';

let token: SoftHsmToken;
let scratch: string;
let spyLog: string;

beforeAll(async () => {
  token = await createSoftHsmToken({ label: 'latch-token', keys: ['secp256k1'] });
  scratch = await mkdtemp(join(tmpdir(), 'localsign-pin-latch-'));
  spyLog = join(scratch, 'spy.log');
  // Read by SoftHSM2 and the spy at their first load in this process (one file, one process).
  Object.assign(process.env, { SOFTHSM2_CONF: token.conf, ...spyEnv(SOFTHSM_MODULE, spyLog) });
});

afterAll(async () => {
  await token?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it('a PIN refused at a re-login is presented once, not once per queued call', async () => {
  let pin = token.pin;
  const chip = await createPkcs11Chip({ modulePath: PKCS11_SPY, tokenLabel: token.label, pin: () => pin });
  const digest = new Uint8Array(32).fill(0x11);
  expect(await chip.signDigest('03', digest)).toHaveLength(64);
  expect(spyCalls(spyLog, 'C_Login')).toBe(1);

  pin = '0000-changed-meanwhile';
  // The same SoftHSM2 instance the spy loaded (one dlopen handle per process): close every
  // session as a token reset does, so the next call must log in again.
  const api = await bindFunctionList(loadPkcs11Module(SOFTHSM_MODULE));
  expect(await api.call('C_CloseAllSessions', (await findToken(api, token.label)).slot)).toBe(0);

  const failures = await Promise.all(Array.from({ length: 5 }, () => chip.signDigest('03', digest).then(() => null, (e: unknown) => e)));
  for (const error of [...failures, await chip.listKeys().then(() => null, (e: unknown) => e)]) {
    expect(isPinRejection(error)).toBe(true);
    expect((error as Error).message).toBe("PIN incorrect on token 'latch-token' (C_Login: CKR_PIN_INCORRECT)");
  }
  expect(spyCalls(spyLog, 'C_Login')).toBe(2);
  await chip.close();
});
