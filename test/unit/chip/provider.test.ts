/**
 * Issue 7.4, issue 31: after the token refused the PIN, the provider opens no chip and tries no
 * login until the operator acts (`chip:retry-pin`, other settings, a changed PIN file); a sync is
 * not such an act, and the refusal, kept in the config dir, holds for every process and across a
 * restart. The token is a fake that counts opens and logins; the real token is in
 * test/integration/chip-api/pin-rejection.test.ts.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PinLatchRecord, PinLatchStore } from '../../../src/chip/pin-latch';
import type { Pkcs11ChipOptions } from '../../../src/chip/pkcs11';
import { Pkcs11CallError } from '../../../src/chip/pkcs11/return-codes';
import type { Chip, ChipSettings } from '../../../src/chip/types';
import { ChipError } from '../../../src/domain/errors';
import { ChipProvider } from '../../../src/chip/provider';
import { tempDir } from '../../helpers/temp-dir';

const RIGHT = 'right-pin-4711';
const WRONG = 'wrong-pin-0815-x';
const dir = tempDir('localsign-chip-provider-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A token with a user PIN; every login is counted, and one whose PIN is wrong is refused. */
function fakeToken(tokenPin: string) {
  const state = { pin: tokenPin, opens: 0, logins: 0, closes: 0, present: true, sessionLost: false, messages: [] as string[] };
  const login = (options: Pkcs11ChipOptions) => {
    if (!state.present) throw new Pkcs11CallError('C_GetSlotList', 0xe0, 'T');
    if (typeof options.pin !== 'function') throw new Error('the fake token takes a stored PIN only');
    const pin = options.pin(); // read before C_Login, as TokenSession does
    state.logins += 1;
    if (pin !== state.pin) throw new Pkcs11CallError('C_Login', 0xa0, 'T');
  };
  const open = async (options: Pkcs11ChipOptions): Promise<Chip> => {
    state.opens += 1;
    login(options);
    const session = async <T>(value: T): Promise<T> => {
      if (state.sessionLost) {
        // What Pkcs11Chip does when the device closed the session: log in again, once.
        state.sessionLost = false;
        login(options);
      }
      return value;
    };
    return {
      kind: 'pkcs11',
      listKeys: () => session([]),
      signDigest: () => session(new Uint8Array(64)),
      close: async () => {
        state.closes += 1;
      },
    };
  };
  return { state, open };
}

/** The config dir's record, shared by every provider (process) made over it. */
function latchStore(): PinLatchStore & { record: PinLatchRecord | null } {
  return {
    record: null,
    read() {
      return this.record;
    },
    write(record) {
      this.record = record;
    },
  };
}

function provider(token: ReturnType<typeof fakeToken>, o: { vars?: Record<string, string>; latch?: PinLatchStore } = {}) {
  return new ChipProvider({
    softChipPath: join(dir, 'soft-chip.json'),
    runTask: () => Promise.reject(new Error('no soft chip here')),
    readVar: (name) => o.vars?.[name],
    latch: o.latch ?? latchStore(),
    openPkcs11: token.open,
  });
}

const envSettings: ChipSettings = { kind: 'pkcs11', module: '/opt/vendor/libpkcs11.so', token_label: 'T', pin_env: 'CHIP_PIN', pin_file: null };

/** The message of the error `promise` rejects with (a ChipError: 502, type chip). */
async function failure(promise: Promise<unknown>, token: ReturnType<typeof fakeToken>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChipError);
  const message = (error as ChipError).message;
  token.state.messages.push(message);
  expect(message).not.toContain(RIGHT);
  expect(message).not.toContain(WRONG);
  return message;
}

const ENV_MESSAGE =
  "PIN incorrect on token 'T' (C_Login: CKR_PIN_INCORRECT); no further login will be tried, so that wrong tries do not lock the token: " +
  'set the right PIN in the variable CHIP_PIN and restart the service, then run `localsign chip:retry-pin` (alone, if the token was made to accept the one there)';

describe('ChipProvider after the token refused the PIN', () => {
  it('logs in once for 10 requests, and every request fails at once with the fix named', async () => {
    const token = fakeToken(RIGHT);
    const chips = provider(token, { vars: { CHIP_PIN: WRONG } });
    const all = await Promise.all(Array.from({ length: 5 }, () => failure(chips.get(envSettings), token)));
    for (let i = 0; i < 5; i += 1) all.push(await failure(chips.get(envSettings), token));
    expect(all).toEqual(Array(10).fill(ENV_MESSAGE));
    expect(token.state).toMatchObject({ opens: 1, logins: 1 });
  });

  it('chip:retry-pin tries once more: refused again, it stays shut', async () => {
    const token = fakeToken(RIGHT);
    const chips = provider(token, { vars: { CHIP_PIN: WRONG } });
    await failure(chips.get(envSettings), token);
    expect(chips.liftRefusal()).toMatchObject({ code: 'CKR_PIN_INCORRECT', reason: "PIN incorrect on token 'T' (C_Login: CKR_PIN_INCORRECT)" });
    expect(await failure(chips.get(envSettings), token)).toBe(ENV_MESSAGE);
    await failure(chips.get(envSettings), token);
    expect(token.state).toMatchObject({ opens: 2, logins: 2 });
    // The token now accepts that PIN (changed with the vendor tool): the next try opens the chip.
    token.state.pin = WRONG;
    chips.liftRefusal();
    await expect(chips.get(envSettings)).resolves.toMatchObject({ kind: 'pkcs11' });
    await chips.get(envSettings);
    expect(token.state).toMatchObject({ opens: 3, logins: 3 });
    expect(chips.liftRefusal()).toBeNull();
  });

  it('other chip settings (init) open the chip again', async () => {
    const token = fakeToken(RIGHT);
    const chips = provider(token, { vars: { CHIP_PIN: WRONG, NEW_PIN: RIGHT } });
    await failure(chips.get(envSettings), token);
    await failure(chips.get(envSettings), token);
    const fixed: ChipSettings = { ...envSettings, pin_env: 'NEW_PIN' };
    await expect(chips.get(fixed)).resolves.toMatchObject({ kind: 'pkcs11' });
    expect(token.state).toMatchObject({ opens: 2, logins: 2 });
  });

  it('the refusal holds for every process on the config dir and across a restart: none logs in', async () => {
    const token = fakeToken(RIGHT);
    const latch = latchStore();
    const service = provider(token, { vars: { CHIP_PIN: WRONG }, latch });
    await failure(service.get(envSettings), token);
    expect(service.status()).toBe('pin_rejected');
    // `localsign sync` in another process, and the service after a restart (or a crash and systemd).
    const cli = provider(token, { vars: { CHIP_PIN: WRONG }, latch });
    const restarted = provider(token, { vars: { CHIP_PIN: RIGHT }, latch });
    expect(await failure(cli.get(envSettings), token)).toBe(ENV_MESSAGE);
    expect(await failure(restarted.get(envSettings), token)).toBe(ENV_MESSAGE);
    expect(token.state).toMatchObject({ opens: 1, logins: 1 });
    // The operator set the right PIN in the service's environment, restarted it, and lifts the latch.
    cli.liftRefusal();
    await expect(restarted.get(envSettings)).resolves.toMatchObject({ kind: 'pkcs11' });
    expect(restarted.status()).toBe('present');
    expect(token.state).toMatchObject({ opens: 2, logins: 2 });
  });

  it('a refusal recorded by another process shuts a chip open here: no request uses it until the operator acts', async () => {
    const token = fakeToken(RIGHT);
    const latch = latchStore();
    const service = provider(token, { vars: { CHIP_PIN: RIGHT }, latch });
    await service.get(envSettings);
    await failure(provider(token, { vars: { CHIP_PIN: WRONG }, latch }).get(envSettings), token);
    expect(await failure(service.get(envSettings), token)).toBe(ENV_MESSAGE);
    expect(service.status()).toBe('pin_rejected');
    service.liftRefusal();
    await expect(service.get(envSettings)).resolves.toMatchObject({ kind: 'pkcs11' });
    expect(token.state).toMatchObject({ opens: 2, logins: 2 });
  });

  it('with a PIN file: writing the right PIN there is enough, and the message names the file', async () => {
    const token = fakeToken(RIGHT);
    const pinFile = join(dir, 'chip.pin');
    writeFileSync(pinFile, `${WRONG}\n`, { mode: 0o600 });
    const settings: ChipSettings = { ...envSettings, pin_env: null, pin_file: pinFile };
    const latch = latchStore();
    const chips = provider(token, { latch });
    for (let i = 0; i < 4; i += 1) {
      expect(await failure(chips.get(settings), token)).toBe(
        "PIN incorrect on token 'T' (C_Login: CKR_PIN_INCORRECT); no further login will be tried, so that wrong tries do not lock the token: " +
          `put the right PIN in the file ${pinFile} (the next use of the chip tries it once), or, if the token was made to accept the one there, run \`localsign chip:retry-pin\``,
      );
    }
    expect(token.state.logins).toBe(1);
    writeFileSync(pinFile, `${RIGHT}\n`);
    await expect(chips.get(settings)).resolves.toMatchObject({ kind: 'pkcs11' });
    expect(token.state).toMatchObject({ opens: 2, logins: 2 });
    // The record the file's change made stale is gone with the successful open.
    expect(latch.record).toBeNull();
  });

  it('a refusal at a re-login (session lost, PIN changed meanwhile) shuts the chip the same way', async () => {
    const token = fakeToken(RIGHT);
    const vars = { CHIP_PIN: RIGHT };
    const chips = provider(token, { vars });
    const chip = await chips.get(envSettings);
    expect(await chip.signDigest('03', new Uint8Array(32))).toHaveLength(64);
    token.state.pin = 'changed-on-the-token';
    token.state.sessionLost = true;
    const message = await failure(chip.signDigest('03', new Uint8Array(32)), token);
    expect(message).toBe(ENV_MESSAGE);
    // The job that still holds the chip, and every new request: no login, the same message.
    expect(await failure(chip.signDigest('03', new Uint8Array(32)), token)).toBe(ENV_MESSAGE);
    expect(await failure(chip.listKeys(), token)).toBe(ENV_MESSAGE);
    expect(await failure(chips.get(envSettings), token)).toBe(ENV_MESSAGE);
    expect(token.state).toMatchObject({ opens: 1, logins: 2, closes: 1 });
    chips.liftRefusal();
    await failure(chips.get(envSettings), token);
    expect(token.state).toMatchObject({ opens: 2, logins: 3 });
  });
});

describe('ChipProvider on faults that are not a refused PIN', () => {
  it('opens again on every request while the token is missing, and works when it is back', async () => {
    const token = fakeToken(RIGHT);
    token.state.present = false;
    const chips = provider(token, { vars: { CHIP_PIN: RIGHT } });
    for (let i = 0; i < 3; i += 1) expect(await failure(chips.get(envSettings), token)).toBe("token not present (removed?) on token 'T' (C_GetSlotList: CKR_TOKEN_NOT_PRESENT)");
    token.state.present = true;
    await expect(chips.get(envSettings)).resolves.toMatchObject({ kind: 'pkcs11' });
    expect(token.state).toMatchObject({ opens: 4, logins: 1 });
  });

  it('an unset PIN variable tries no login and is not latched: setting it is enough', async () => {
    const token = fakeToken(RIGHT);
    const vars: Record<string, string> = {};
    const chips = provider(token, { vars });
    expect(await failure(chips.get(envSettings), token)).toBe("the chip PIN variable CHIP_PIN is not set in the service's environment");
    vars.CHIP_PIN = RIGHT;
    await expect(chips.get(envSettings)).resolves.toMatchObject({ kind: 'pkcs11' });
    expect(token.state).toMatchObject({ opens: 2, logins: 1 });
  });
});
