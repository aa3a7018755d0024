/**
 * The PIN-pad shim itself (test/helpers/pinpad-shim): SoftHSM2 behind a simulated PIN-pad
 * reader. pkcs11-tool drives it as a PIN-pad-aware application does (it logs in with a NULL PIN
 * when the token reports CKF_PROTECTED_AUTHENTICATION_PATH and no --pin is given, for CKU_USER
 * and for the CKU_CONTEXT_SPECIFIC login of an always-authenticate key). The "person never
 * types" cases need a C_Login blocked on one thread and C_CloseSession from another: koffi's async
 * call runs C_Login on a worker thread while this thread closes the session, as the service does.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { p256 } from '@noble/curves/nist.js';
import koffi from 'koffi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPinpadShim, clearKeypad, CKR, NEVER, pinpadEnv, shimLog, type } from '../../helpers/pinpad-shim';
import { createSoftHsmTokens, SOFTHSM_MODULE, type SoftHsmTokenSet } from '../../helpers/softhsm';

const run = promisify(execFile);

let shim: string;
let cards: SoftHsmTokenSet;
let scratch: string;
let keypad: string;
let log: string;

beforeAll(async () => {
  shim = buildPinpadShim();
  // Two cards in one configuration: a plain one and a qualified one whose key wants the PIN for
  // every signature.
  cards = await createSoftHsmTokens([
    { label: 'pad-card', keys: ['p256'] },
    { label: 'pad-qscd', keys: ['p256'], alwaysAuth: true },
  ]);
  scratch = await mkdtemp(join(tmpdir(), 'localsign-pinpad-'));
  keypad = join(scratch, 'keypad');
  log = join(scratch, 'shim.log');
});

afterAll(async () => {
  // The shim never writes a PIN, whatever was typed or sent.
  const text = log ? await readFile(log, 'utf8').catch(() => '') : '';
  expect(text.length).toBeGreaterThan(0);
  for (const token of cards?.tokens ?? []) expect(text).not.toContain(token.pin);
  expect(text).not.toContain('wrong-pin-typed');
  await cards?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** pkcs11-tool with the shim as its module; `pin` goes through the environment, never argv. */
async function padTool(args: string[], pin?: string): Promise<{ ok: boolean; out: string }> {
  const env = { ...cards.env, ...pinpadEnv(SOFTHSM_MODULE, keypad, log), ...(pin === undefined ? {} : { LOCALSIGN_TEST_PIN: pin }) };
  try {
    const { stdout, stderr } = await run('pkcs11-tool', ['--module', shim, ...args, ...(pin === undefined ? [] : ['--pin', 'env:LOCALSIGN_TEST_PIN'])], { env, timeout: 20_000 });
    return { ok: true, out: `${String(stdout)}${String(stderr)}` };
  } catch (error) {
    const e = error as { stdout?: unknown; stderr?: unknown; killed?: boolean };
    if (e.killed) throw new Error('pkcs11-tool hung');
    return { ok: false, out: `${String(e.stdout)}${String(e.stderr)}` };
  }
}

/** Log lines written while `action` ran. */
async function logOf<T>(action: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const before = shimLog(log).length;
  const result = await action();
  return { result, lines: shimLog(log).slice(before) };
}

describe('through pkcs11-tool', () => {
  // SoftHSM2 2.6 as Debian builds it has no CKM_ECDSA_SHA256: sign a SHA-256 digest with raw
  // CKM_ECDSA, as the service does.
  const digest = createHash('sha256').update('localsign PIN-pad shim test').digest();
  let data: string;
  beforeAll(async () => {
    data = join(scratch, 'digest');
    await writeFile(data, digest);
  });
  /** The token's P-256 key (id 02) made `signature` (r‖s) over `digest`. */
  const signedBy = async (label: string, signature: string) => {
    const spki = cards.token(label).keys[0]?.publicKeyInfo ?? new Uint8Array();
    return p256.verify(new Uint8Array(await readFile(signature)), digest, spki.subarray(-65), { prehash: false, lowS: false });
  };

  it('reports CKF_PROTECTED_AUTHENTICATION_PATH on every token ("PIN pad present")', async () => {
    const { ok, out } = await padTool(['--list-token-slots']);
    expect(ok).toBe(true);
    const flags = out.split('\n').filter((line) => /token flags/u.test(line));
    expect(flags).toHaveLength(2);
    for (const line of flags) expect(line).toContain('PIN pad present');
    // SoftHSM2 itself has no PIN pad.
    const { stdout } = await cards.token('pad-card').pkcs11Tool(['--list-token-slots']);
    expect(stdout).not.toContain('PIN pad present');
  });

  it('logs in with a NULL PIN and the PIN typed on the pad, then signs', async () => {
    type(keypad, cards.token('pad-card').pin);
    const signature = join(scratch, 'card.sig');
    const { result, lines } = await logOf(() =>
      padTool(['--token-label', 'pad-card', '--login', '--sign', '--id', '02', '-m', 'ECDSA', '--input-file', data, '--output-file', signature]),
    );
    expect(result.ok, result.out).toBe(true);
    expect(lines).toEqual(['C_Login user=1 pin=NULL', 'pad user=1 rv=0x0', 'C_Sign rv=0x0']);
    expect(await signedBy('pad-card', signature)).toBe(true);
  });

  it('an always-authenticate key: the CKU_CONTEXT_SPECIFIC login comes through the pad too', async () => {
    type(keypad, cards.token('pad-qscd').pin);
    const signature = join(scratch, 'qscd.sig');
    const { result, lines } = await logOf(() =>
      padTool(['--token-label', 'pad-qscd', '--login', '--sign', '--id', '02', '-m', 'ECDSA', '--input-file', data, '--output-file', signature]),
    );
    expect(result.ok, result.out).toBe(true);
    expect(lines).toEqual(['C_Login user=1 pin=NULL', 'pad user=1 rv=0x0', 'C_Login user=2 pin=NULL', 'pad user=2 rv=0x0', 'C_Sign rv=0x0']);
    expect(await signedBy('pad-qscd', signature)).toBe(true);
  });

  it('refuses a PIN sent by the host (CKR_ARGUMENTS_BAD) without asking the token', async () => {
    type(keypad, cards.token('pad-card').pin);
    const { result, lines } = await logOf(() => padTool(['--token-label', 'pad-card', '--login', '--list-objects'], cards.token('pad-card').pin));
    expect(result.ok).toBe(false);
    expect(result.out).toContain('CKR_ARGUMENTS_BAD');
    expect(lines).toEqual(['C_Login user=1 pin=NON-NULL rv=0x7']);
  });

  it('a wrong PIN typed on the pad is the token\'s CKR_PIN_INCORRECT', async () => {
    type(keypad, 'wrong-pin-typed');
    const { result, lines } = await logOf(() => padTool(['--token-label', 'pad-card', '--login', '--list-objects']));
    expect(result.ok).toBe(false);
    expect(result.out).toContain('CKR_PIN_INCORRECT');
    expect(lines).toEqual(['C_Login user=1 pin=NULL', `pad user=1 rv=0x${CKR.PIN_INCORRECT.toString(16)}`]);
  });
});

describe('a person who never types, from another thread (koffi)', () => {
  const UL = 'unsigned long';
  const PTR = 'void *';
  type Fn = ((...args: unknown[]) => number | bigint) & { async: (...args: unknown[]) => void };
  let C: Record<'Initialize' | 'Finalize' | 'GetSlotList' | 'GetTokenInfo' | 'OpenSession' | 'CloseSession' | 'CloseAllSessions' | 'Login' | 'Logout', Fn>;
  let slot: bigint;
  let initialized = false;

  const rv = (value: number | bigint) => Number(value);
  const later = (ms: number) => new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), ms));
  /** C_Login with a NULL PIN on a koffi worker thread. */
  const loginAsync = (session: bigint, user = 1) =>
    new Promise<number>((resolve, reject) => C.Login.async(session, user, null, 0, (error: unknown, value: number | bigint) => (error ? reject(error) : resolve(rv(value)))));
  const openSession = () => {
    const out = Buffer.alloc(8);
    expect(rv(C.OpenSession(slot, 0x6, null, null, out))).toBe(CKR.OK);
    return out.readBigUInt64LE();
  };

  beforeAll(() => {
    // The shim and SoftHSM2 read their environment at C_Initialize (forks pool: process.env is the C environment).
    Object.assign(process.env, { SOFTHSM2_CONF: cards.conf }, pinpadEnv(SOFTHSM_MODULE, keypad, log));
    const library = koffi.load(shim);
    const list = [null as unknown];
    expect(rv(library.func('unsigned long C_GetFunctionList(_Out_ void **)')(list))).toBe(CKR.OK);
    const fn = (index: number, params: string[]) => koffi.decode(koffi.decode(list[0], 8 + index * 8, PTR), koffi.proto(UL, params)) as Fn;
    C = {
      Initialize: fn(0, [PTR]),
      Finalize: fn(1, [PTR]),
      GetSlotList: fn(4, ['uint8_t', PTR, PTR]),
      GetTokenInfo: fn(6, [UL, PTR]),
      OpenSession: fn(12, [UL, UL, PTR, PTR, PTR]),
      CloseSession: fn(13, [UL]),
      CloseAllSessions: fn(14, [UL]),
      Login: fn(18, [UL, UL, PTR, UL]),
      Logout: fn(19, [UL]),
    };
    // CK_C_INITIALIZE_ARGS with CKF_OS_LOCKING_OK, as the service initialises modules.
    const args = Buffer.alloc(48);
    args.writeBigUInt64LE(0x2n, 32);
    expect(rv(C.Initialize(args))).toBe(CKR.OK);
    initialized = true;

    const count = Buffer.alloc(8);
    C.GetSlotList(1, null, count);
    const slots = Buffer.alloc(8 * Number(count.readBigUInt64LE()));
    expect(rv(C.GetSlotList(1, slots, count))).toBe(CKR.OK);
    for (let i = 0; i < Number(count.readBigUInt64LE()); i++) {
      const id = slots.readBigUInt64LE(i * 8);
      const info = Buffer.alloc(256);
      expect(rv(C.GetTokenInfo(id, info))).toBe(CKR.OK);
      expect(info.readBigUInt64LE(96) & 0x100n).toBe(0x100n); // CKF_PROTECTED_AUTHENTICATION_PATH
      if (info.subarray(0, 32).toString('utf8').trimEnd() === 'pad-card') slot = id;
    }
    expect(slot).toBeDefined();
  });

  afterAll(() => {
    if (initialized) C.Finalize(null);
  });

  it('`never` on the pad: C_Login waits until C_CloseSession from another thread, then CKR_FUNCTION_CANCELED', async () => {
    type(keypad, NEVER);
    const session = openSession();
    const login = loginAsync(session);
    expect(await Promise.race([login, later(400)])).toBe('waiting');
    expect(shimLog(log).at(-1)).toBe('C_Login user=1 pin=NULL');
    const closedAt = Date.now();
    expect(rv(C.CloseSession(session))).toBe(CKR.OK);
    expect(await login).toBe(CKR.FUNCTION_CANCELED);
    expect(Date.now() - closedAt).toBeLessThan(1000);
    expect(shimLog(log).at(-1)).toBe('pad user=1 rv=0x50');
  });

  it('no keypad file at all: C_CloseAllSessions of the slot cancels the waiting login', async () => {
    clearKeypad(keypad);
    const session = openSession();
    const login = loginAsync(session);
    expect(await Promise.race([login, later(300)])).toBe('waiting');
    expect(rv(C.CloseAllSessions(slot))).toBe(CKR.OK);
    expect(await login).toBe(CKR.FUNCTION_CANCELED);
  });

  it('a person who types late: the waiting login goes on with the PIN once it is typed', async () => {
    type(keypad, NEVER);
    const session = openSession();
    const login = loginAsync(session);
    expect(await Promise.race([login, later(300)])).toBe('waiting');
    type(keypad, cards.token('pad-card').pin);
    expect(await login).toBe(CKR.OK);
    expect(rv(C.Logout(session))).toBe(CKR.OK);
    expect(rv(C.CloseSession(session))).toBe(CKR.OK);
  });

  it('C_Finalize ends every waiting login (CKR_FUNCTION_CANCELED) before the module goes', async () => {
    clearKeypad(keypad);
    const logins = [loginAsync(openSession()), loginAsync(openSession())];
    expect(await Promise.race([...logins, later(300)])).toBe('waiting');
    expect(rv(C.Finalize(null))).toBe(CKR.OK);
    initialized = false;
    expect(await Promise.all(logins)).toEqual([CKR.FUNCTION_CANCELED, CKR.FUNCTION_CANCELED]);
  });
});

it('buildPinpadShim reuses one build per source (keyed by its sha256)', async () => {
  expect(buildPinpadShim()).toBe(shim);
  const source = await readFile(join(__dirname, '../../helpers/pinpad-shim/pinpad-shim.c'));
  expect(shim).toContain(createHash('sha256').update(source).digest('hex').slice(0, 16));
});
