/**
 * Issue 31: wrong `chip_pin` values are counted and slowed per application and per token, and no
 * PIN goes to a card whose flags say the next wrong one locks it, or that is locked. A SoftHSM2
 * token (which never locks: 250 tries a second would be taken; it sets CKF_USER_PIN_COUNT_LOW
 * after a wrong PIN, never FINAL_TRY or LOCKED) behind the test shim, which makes its card report
 * those flags as the test sets them, behind OpenSC's pkcs11-spy, whose log counts the C_Login calls.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPinpadShim, cardEnv, PIN_FLAGS, setTokenFlags } from '../../helpers/pinpad-shim';
import { PKCS11_SPY, spyEnv, spySequence } from '../../helpers/pkcs11-spy';
import { authed, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { initChip, newWrapper, startWithChip, type ChipCredential } from './_chip-service';
import { tempDir } from '../../helpers/temp-dir';

type Call = ReturnType<typeof authed>;

let token: SoftHsmToken;
let scratch: string;
let shim: string;

beforeAll(async () => {
  token = await createSoftHsmToken({ label: 'tries-card', keys: ['secp256k1'] });
  scratch = tempDir('localsign-chip-pin-tries-');
  shim = buildPinpadShim();
});
afterAll(async () => {
  await token?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A service on its own home: the chip is the spy, in front of the shim, in front of SoftHSM2. */
async function serviceWith(name: string, pinArgs: string[]) {
  const home = makeTmpHome();
  const spyLog = join(scratch, `${name}.spy.log`);
  const flagsFile = join(scratch, `${name}.flags`);
  setTokenFlags(flagsFile, 0);
  const env = { SOFTHSM2_CONF: token.conf, ...spyEnv(shim, spyLog), ...cardEnv(SOFTHSM_MODULE, flagsFile) };
  // init logs in with a stored PIN: its calls go to a log of their own.
  initChip(home.home, PKCS11_SPY, ['--chip-token', token.label, ...pinArgs], { ...env, ...spyEnv(shim, join(scratch, `${name}-init.spy.log`)) });
  const wrappers = [newWrapper(home.home), newWrapper(home.home)];
  const started = await startWithChip(home.home, wrappers[0]!, env);
  const wallet = started.credentials.find((c: ChipCredential) => c.type === 'evm')!;
  return {
    ...started,
    other: authed(started.service.url, wrappers[1]!),
    wallet,
    flagsFile,
    /** The CKU_USER logins the service made so far. */
    userLogins: () => spySequence(spyLog).filter((c) => c.name === 'C_Login' && c.userType === 'CKU_USER'),
    async close() {
      await started.service.stop();
      home.cleanup();
    },
  };
}

let hashes = 0;
function signHash(call: Call, credentialKey: string, pin?: string): Promise<Response> {
  hashes += 1;
  const body = { tx_hash: '0x' + hashes.toString(16).padStart(64, '0'), credential_key: credentialKey, ...(pin === undefined ? {} : { chip_pin: pin }) };
  return call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify(body) });
}

/** A sign request followed to its end: the 429 (or other refusal) as it came, else the result. */
async function signed(call: Call, credentialKey: string, pin?: string): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await signHash(call, credentialKey, pin);
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 202) return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
  return { status: 202, body: await waitForResult(call, String(body.request_id)), retryAfter: null };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('wrong chip_pin values, counted and slowed', () => {
  let s: Awaited<ReturnType<typeof serviceWith>>;
  beforeAll(async () => {
    s = await serviceWith('tries', ['--chip-pin-per-request']);
  });
  afterAll(async () => s?.close());

  it('300 different wrong PINs from one application in a burst make at most a handful of C_Login calls', async () => {
    const started = Date.now();
    const outcomes: Awaited<ReturnType<typeof signed>>[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      outcomes.push(...(await Promise.all(Array.from({ length: 30 }, (_, i) => signed(s.call, s.wallet.credential_key, `wrong-${batch}-${i}`)))));
    }
    const elapsed = Date.now() - started;
    const logins = s.userLogins();
    expect(logins.length, `${logins.length} C_Login in ${elapsed} ms`).toBeGreaterThanOrEqual(1);
    expect(logins.length).toBeLessThanOrEqual(Math.max(3, Math.ceil(Math.log2(elapsed / 1000 + 1)) + 2));
    expect(logins.every((c) => c.rv === 'CKR_PIN_INCORRECT')).toBe(true);

    // Each try is refused without reaching the card: before its 202 (429), or, accepted while an
    // earlier one was at the card, in its job; only the C_Login calls above were the card's answer.
    const refused = outcomes.filter((o) => o.status === 429);
    const ended = outcomes.filter((o) => o.status === 202);
    expect(refused.length + ended.length).toBe(300);
    expect(refused.length).toBeGreaterThan(0);
    const throttled = /^the card refused this application's last chip_pin \(\d+ wrong in a row\); the next chip_pin for it is taken in \d+ s: wrong PINs are slowed so that they can neither lock the card nor be guessed\. Ask the signatory for the right PIN before sending it again$/u;
    for (const o of refused) {
      expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(String(o.body.error_id)).toMatch(/^err_/u);
      expect(String(o.body.error)).toMatch(throttled);
    }
    for (const o of ended) expect(o.body.status).toBe('ERROR');
    const byCard = ended.filter((o) => String(o.body.error).startsWith('the card refused chip_pin (CKR_PIN_INCORRECT); send the right one with the next request'));
    expect(byCard.length).toBe(logins.length);
    for (const o of ended.filter((e) => !byCard.includes(e))) expect(String(o.body.error)).toMatch(throttled);
  });

  it("the right PIN, once its wait is over, signs and ends the run; another application waits for the card's count", async () => {
    const before = s.userLogins().length;
    let right = await signed(s.call, s.wallet.credential_key, token.pin);
    while (right.status === 429) {
      await sleep(Number(right.retryAfter) * 1000);
      right = await signed(s.call, s.wallet.credential_key, token.pin);
    }
    expect(right.body.status, JSON.stringify(right.body)).toBe('DONE');
    expect(s.userLogins().slice(before).map((c) => c.rv)).toEqual(['CKR_OK']);
    // One wrong PIN from this application: the other one waits 1 s too (the card's count).
    expect((await signed(s.call, s.wallet.credential_key, 'wrong-after-right')).body.error).toMatch(/^the card refused chip_pin \(CKR_PIN_INCORRECT\)/u);
    const other = await signed(s.other, s.wallet.credential_key, token.pin);
    expect(other.status).toBe(429);
    expect(other.retryAfter).toBe('1');
    expect(String(other.body.error)).toMatch(/^the card refused the last 1 chip_pin values sent to it \(from any application\); the next chip_pin for it is taken in 1 s/u);
    await sleep(1_000);
    expect((await signed(s.other, s.wallet.credential_key, token.pin)).body.status).toBe('DONE');
    // The other application's right PIN ended the card's run, not this application's own: its next
    // wrong PIN is its second in a row.
    expect((await signed(s.call, s.wallet.credential_key, 'wrong-again')).body.status).toBe('ERROR');
    const next = await signed(s.call, s.wallet.credential_key, 'wrong-once-more');
    expect(next.status).toBe(429);
    expect(String(next.body.error)).toContain('(2 wrong in a row)');
    expect(['1', '2']).toContain(next.retryAfter); // 2 s from that wrong PIN's refusal
  }, 120_000);

  it('no chip_pin is presented, right or wrong, when the card says the next wrong one locks it, or that it is locked', async () => {
    await sleep(2_100); // the wait after this application's last wrong PIN
    const before = s.userLogins().length;
    setTokenFlags(s.flagsFile, PIN_FLAGS.COUNT_LOW | PIN_FLAGS.FINAL_TRY);
    const finalTry = await signed(s.call, s.wallet.credential_key, token.pin);
    expect(finalTry.body.status).toBe('ERROR');
    expect(finalTry.body.error).toBe(
      "token 'tries-card' says one more wrong PIN locks it (CKF_USER_PIN_FINAL_TRY), so no PIN is presented to it: the signatory enters the right PIN once in the card's own software (a right PIN resets the count), then sends the request again",
    );
    setTokenFlags(s.flagsFile, PIN_FLAGS.LOCKED);
    const locked = await signed(s.other, s.wallet.credential_key, 'any-pin');
    expect(locked.body.status).toBe('ERROR');
    expect(locked.body.error).toBe(
      "the user PIN of token 'tries-card' is locked (the token reports CKF_USER_PIN_LOCKED), so no PIN is presented to it: the signatory unblocks the card with its PUK (the card vendor's tool), then sends the request again",
    );
    expect(s.userLogins().length).toBe(before);
    // COUNT_LOW alone only says a wrong PIN came before: the right one is presented, and signs.
    setTokenFlags(s.flagsFile, PIN_FLAGS.COUNT_LOW);
    expect((await signed(s.call, s.wallet.credential_key, token.pin)).body.status).toBe('DONE');
    expect(s.userLogins().slice(before).map((c) => c.rv)).toEqual(['CKR_OK']);
  });

  it("a wrong PIN's message says what the card reports after it (SoftHSM2's own COUNT_LOW)", async () => {
    setTokenFlags(s.flagsFile, 0);
    const wrong = await signed(s.call, s.wallet.credential_key, 'wrong-count-low');
    expect(wrong.body.error).toBe('the card refused chip_pin (CKR_PIN_INCORRECT); send the right one with the next request; the card counts this wrong try (CKF_USER_PIN_COUNT_LOW)');
  });
});

describe('the stored PIN and the card flags', () => {
  let s: Awaited<ReturnType<typeof serviceWith>>;
  const pinFile = () => join(scratch, 'stored.pin');
  beforeAll(async () => {
    writeFileSync(pinFile(), `${token.pin}\n`, { mode: 0o600 });
    s = await serviceWith('stored', ['--chip-pin-file', pinFile()]);
  });
  afterAll(async () => s?.close());

  it('a card whose next wrong PIN locks it, or that is locked, gets no login at open; once cleared, the next request logs in without an operator act', async () => {
    for (const [flags, start] of [
      [PIN_FLAGS.FINAL_TRY, "token 'tries-card' says one more wrong PIN locks it (CKF_USER_PIN_FINAL_TRY), so no PIN is presented to it: check the PIN in the file or variable given to `init`"],
      [PIN_FLAGS.LOCKED, "the user PIN of token 'tries-card' is locked (the token reports CKF_USER_PIN_LOCKED), so no PIN is presented to it: unblock it with the SO PIN"],
    ] as const) {
      setTokenFlags(s.flagsFile, flags);
      const r = await signed(s.call, s.wallet.credential_key);
      expect(r.body.status).toBe('ERROR');
      expect(String(r.body.error)).toContain(start);
    }
    expect(s.userLogins()).toEqual([]);
    setTokenFlags(s.flagsFile, 0);
    expect((await signed(s.call, s.wallet.credential_key)).body.status).toBe('DONE');
    expect(s.userLogins().map((c) => c.rv)).toEqual(['CKR_OK']);
  });
});
