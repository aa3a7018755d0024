/**
 * A throw-away SoftHSM2 token for tests: its own token directory and softhsm2.conf, keys made on
 * the token by pkcs11-tool (OpenSC), X.509 certificates for the RSA and P-256 keys issued by a
 * two-level test CA made with the openssl CLI, and the CA certificates written to the token too.
 *
 * PINs never appear on a command line (a process listing would show them): pkcs11-tool reads
 * them through `--pin env:VAR` / `--so-pin env:VAR` (OpenSC >= 0.23), and only the child's
 * environment holds the variable. We avoid `softhsm2-util --init-token`, which takes PINs only as
 * arguments or from a TTY.
 *
 * SoftHSM2 reads SOFTHSM2_CONF at C_Initialize. A bridge loaded in-process therefore needs
 * `process.env.SOFTHSM2_CONF = token.conf` before its first C_Initialize, and one process can
 * only use one configuration at a time: use one token per test file (vitest's default `forks`
 * pool runs each file in its own process; in the `threads` pool, process.env does not reach the
 * C environment and SoftHSM2 would read /etc/softhsm/softhsm2.conf instead). Several tokens in
 * one configuration: `createSoftHsmTokens`.
 *
 * Card shapes (issue 16), as options of both: keys that want the PIN for every signature
 * (`alwaysAuth`), certificates whose CKA_ID differs from their key's or is empty (`idLayout`),
 * no public-key objects (`withoutPublicKeys`), private keys listed without a login
 * (`keysVisibleWithoutLogin`). Each key says what its objects carry (SoftHsmKey).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export type TestKeyAlgorithm = 'rsa' | 'p256' | 'secp256k1';

/**
 * How certificates name their key (issue 16, "matching keys to certificates"):
 * - 'matching': the certificate has its key's CKA_ID (01, 02), as pkcs11-tool and most cards write.
 * - 'certificate-differs': the certificate has another CKA_ID than its key (key 01, cert a1; key
 *   02, cert a2), as some middleware writes them.
 * - 'no-ids': the certificate is written without CKA_ID. SoftHSM2 stores every attribute a class
 *   has, so CKA_ID is then present but empty (length 0, the v2.40 default), which is what a
 *   reader of the attribute sees on such cards too.
 * The CA certificates keep their ids (c0, c1) in every layout.
 */
export type CertificateIdLayout = 'matching' | 'certificate-differs' | 'no-ids';

export interface SoftHsmTokenOptions {
  label?: string;
  keys?: TestKeyAlgorithm[];
  /**
   * CKA_ALWAYS_AUTHENTICATE true on every private key (`pkcs11-tool --keypairgen --always-auth`):
   * SoftHSM2 then refuses C_Sign until C_Login(CKU_CONTEXT_SPECIFIC) follows each C_SignInit.
   */
  alwaysAuth?: boolean;
  idLayout?: CertificateIdLayout;
  /**
   * Deletes CKO_PUBLIC_KEY objects after the certificates are written: `true` for the keys that
   * have a certificate (rsa, p256: a card with a certificate and a private key only), or a list
   * of algorithms (include 'secp256k1' for a key with neither public key nor certificate).
   */
  withoutPublicKeys?: boolean | TestKeyAlgorithm[];
  /**
   * CKA_PRIVATE false on the private keys: listed (not usable) without a login. pkcs11-tool
   * cannot do it (`--keypairgen` and `--write-object --type privkey` both set CKA_PRIVATE true;
   * SoftHSM2 refuses C_SetAttributeValue of it (CKR_ATTRIBUTE_READ_ONLY) and C_CopyObject to false
   * (CKR_TEMPLATE_INCONSISTENT)), so these keys are made by C_GenerateKeyPair with that template,
   * from a child Node process through koffi. SoftHSM2 refuses CKA_ALWAYS_AUTHENTICATE on a
   * non-private key (CKR_TEMPLATE_INCONSISTENT): not combinable with `alwaysAuth`.
   */
  keysVisibleWithoutLogin?: boolean;
}

export interface SoftHsmKey {
  /** CKA_ID of the private key as lowercase hex, as ChipKey.id reports it. */
  id: string;
  label: string;
  algorithm: TestKeyAlgorithm;
  /** DER certificate written to the token (rsa and p256 only), with CKA_ID `certificateId`. */
  certificate: Uint8Array | null;
  /**
   * CKA_ID of the certificate object as lowercase hex: `id` ('matching'), `a` + the key id's last
   * digit ('certificate-differs'), or null (no certificate, or 'no-ids': an empty CKA_ID).
   */
  certificateId: string | null;
  /** CKA_ID of the public key object (= `id`), or null when it was deleted (withoutPublicKeys). */
  publicKeyId: string | null;
  /** SubjectPublicKeyInfo (DER) of the key pair, read from the token before any deletion. */
  publicKeyInfo: Uint8Array;
  /** CKA_ALWAYS_AUTHENTICATE of the private key. */
  alwaysAuthenticate: boolean;
  /** CKA_PRIVATE of the private key (false: listed without a login). */
  privateKeyPrivate: boolean;
}

export interface SoftHsmToken {
  /** Path of this token's softhsm2.conf, the value for SOFTHSM2_CONF (shared by a token set). */
  conf: string;
  modulePath: string;
  label: string;
  pin: string;
  soPin: string;
  /** Environment for child processes using the token (SOFTHSM2_CONF set; no PIN in it). */
  env: NodeJS.ProcessEnv;
  keys: SoftHsmKey[];
  /** The CA that issued the key certificates: intermediate (id c1) and self-signed root (id c0). */
  ca: { intermediate: Uint8Array; root: Uint8Array };
  /** This token's own directory under the token directory (`<tokendir>/<uuid>`), while plugged. */
  directory: string;
  /** Moves the token's files away: SoftHSM2 then no longer finds the token (a pulled device). */
  unplug(): Promise<void>;
  /** Puts the token's files back. */
  plug(): Promise<void>;
  /**
   * Sets a new user PIN with the SO PIN (C_InitPIN), as an operator resets a token's PIN with the
   * vendor tool. `pin` keeps the PIN the token was made with.
   */
  setUserPin(newPin: string): Promise<void>;
  /** Runs pkcs11-tool on this token with the user PIN passed through the environment. */
  pkcs11Tool(args: string[], options?: { pin?: string }): Promise<{ stdout: string; stderr: string }>;
  /** Removes the whole temporary directory (for a token of a set: every token of the set). */
  cleanup(): Promise<void>;
}

/** Several tokens in one token directory with one softhsm2.conf (issue 16, "several tokens"). */
export interface SoftHsmTokenSet {
  conf: string;
  modulePath: string;
  /** Environment for child processes (SOFTHSM2_CONF set; no PIN in it). */
  env: NodeJS.ProcessEnv;
  /** In the order given; each with its own PIN, SO PIN, CA, keys (ids 01, 02, 03 on each) and certificates. */
  tokens: SoftHsmToken[];
  /** The token with this label (throws if there is none). */
  token(label: string): SoftHsmToken;
  /** Pulls one token out: its directory moves away, the others stay. */
  unplugToken(label: string): Promise<void>;
  plugToken(label: string): Promise<void>;
  /** Pulls out / puts back every token. */
  unplug(): Promise<void>;
  plug(): Promise<void>;
  cleanup(): Promise<void>;
}

const KEY_SPECS: Record<TestKeyAlgorithm, { id: string; label: string; keyType: string }> = {
  rsa: { id: '01', label: 'rsa-signer', keyType: 'rsa:2048' },
  p256: { id: '02', label: 'p256-signer', keyType: 'EC:prime256v1' },
  secp256k1: { id: '03', label: 'secp256k1-wallet', keyType: 'EC:secp256k1' },
};

async function tool(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { env, maxBuffer: 16 * 1024 * 1024 });
    return { stdout: String(stdout), stderr: String(stderr) };
  } catch (error) {
    // A missing tool (ENOENT) must fail the test run, never skip it.
    const e = error as { code?: unknown; stderr?: unknown; message?: string };
    throw new Error(`${file} ${args.join(' ')} failed (${String(e.code)}): ${String(e.stderr ?? e.message)}`);
  }
}

/** One token directory and its softhsm2.conf. */
interface TokenHome {
  dir: string;
  tokenDir: string;
  parkedDir: string;
  conf: string;
  env: NodeJS.ProcessEnv;
}

async function makeHome(): Promise<TokenHome> {
  const dir = await mkdtemp(join(tmpdir(), 'localsign-softhsm-'));
  const tokenDir = join(dir, 'tokens');
  const parkedDir = join(dir, 'tokens-unplugged');
  await mkdir(tokenDir, { mode: 0o700 });
  const conf = join(dir, 'softhsm2.conf');
  await writeFile(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  return { dir, tokenDir, parkedDir, conf, env: { ...process.env, SOFTHSM2_CONF: conf } };
}

export async function createSoftHsmToken(options: SoftHsmTokenOptions = {}): Promise<SoftHsmToken> {
  let home: TokenHome | undefined;
  try {
    home = await makeHome();
    return await populateToken(home, options, home.dir);
  } catch (error) {
    if (home) await rm(home.dir, { recursive: true, force: true }); // no half-made token left in /tmp
    throw error;
  }
}

/**
 * Several tokens in one SoftHSM2 configuration: each entry is a label or the options of one
 * token (`common` applies to all, an entry's own options win). Key CKA_IDs repeat across tokens.
 */
export async function createSoftHsmTokens(
  entries: (string | SoftHsmTokenOptions)[],
  common: Omit<SoftHsmTokenOptions, 'label'> = {},
): Promise<SoftHsmTokenSet> {
  let home: TokenHome | undefined;
  try {
    home = await makeHome();
    const tokens: SoftHsmToken[] = [];
    for (const [index, entry] of entries.entries()) {
      const own = typeof entry === 'string' ? { label: entry } : entry;
      const label = own.label ?? `localsign-test-${index + 1}`;
      if (tokens.some((t) => t.label === label)) throw new Error(`two tokens labelled ${label}`);
      const work = join(home.dir, `work-${index + 1}`);
      await mkdir(work);
      tokens.push(await populateToken(home, { ...common, ...own, label }, work));
    }
    const { conf, env, dir } = home;
    const token = (label: string): SoftHsmToken => {
      const found = tokens.find((t) => t.label === label);
      if (!found) throw new Error(`no token labelled ${label}: ${tokens.map((t) => t.label).join(', ')}`);
      return found;
    };
    return {
      conf,
      modulePath: SOFTHSM_MODULE,
      env,
      tokens,
      token,
      unplugToken: (label) => token(label).unplug(),
      plugToken: (label) => token(label).plug(),
      async unplug() {
        for (const t of tokens) await t.unplug();
      },
      async plug() {
        for (const t of tokens) await t.plug();
      },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    if (home) await rm(home.dir, { recursive: true, force: true });
    throw error;
  }
}

/** The id of the free (uninitialised) slot SoftHSM2 always offers after its tokens. */
async function freeSlot(env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await tool('pkcs11-tool', ['--module', SOFTHSM_MODULE, '--list-slots'], env);
  const match = /^Slot \d+ \((0x[0-9a-f]+)\):[^\n]*\n\s*token state:\s*uninitialized/imu.exec(stdout);
  if (!match?.[1]) throw new Error(`no uninitialised SoftHSM2 slot in:\n${stdout}`);
  return String(BigInt(match[1]));
}

async function populateToken(home: TokenHome, options: SoftHsmTokenOptions, work: string): Promise<SoftHsmToken> {
  const { tokenDir, parkedDir, env, conf } = home;
  if (options.alwaysAuth && options.keysVisibleWithoutLogin) {
    throw new Error('alwaysAuth and keysVisibleWithoutLogin: SoftHSM2 refuses CKA_ALWAYS_AUTHENTICATE on a key with CKA_PRIVATE false');
  }
  const label = options.label ?? 'localsign-test';
  const idLayout = options.idLayout ?? 'matching';
  const pin = randomBytes(6).toString('hex');
  const soPin = randomBytes(6).toString('hex');
  const secretEnv = (userPin: string): NodeJS.ProcessEnv => ({ ...env, LOCALSIGN_TEST_PIN: userPin, LOCALSIGN_TEST_SO_PIN: soPin });
  const p11 = (args: string[], userPin = pin) =>
    tool('pkcs11-tool', ['--module', SOFTHSM_MODULE, ...args], secretEnv(userPin));
  const onToken = (args: string[]) => p11(['--token-label', label, ...args]);
  const loggedIn = (args: string[]) => onToken(['--login', '--pin', 'env:LOCALSIGN_TEST_PIN', ...args]);

  // SoftHSM2 shows one free, uninitialised slot after its tokens (index 0 in an empty token
  // directory); the new token gets its own directory <tokendir>/<uuid>.
  const before = new Set(await readdir(tokenDir));
  await p11(['--init-token', '--slot', await freeSlot(env), '--label', label, '--so-pin', 'env:LOCALSIGN_TEST_SO_PIN']);
  const created = (await readdir(tokenDir)).filter((name) => !before.has(name));
  if (created.length !== 1 || !created[0]) throw new Error(`cannot tell which directory holds token ${label}: ${created.join(', ')}`);
  const ownDir = created[0];
  await onToken(['--login', '--login-type', 'so', '--so-pin', 'env:LOCALSIGN_TEST_SO_PIN', '--init-pin', '--pin', 'env:LOCALSIGN_TEST_PIN']);

  const file = (name: string) => join(work, name);
  const ossl = (args: string[]) => tool('openssl', args, env);
  // Test CA: root -> intermediate -> signers, so `chain` has an order to get right.
  await writeFile(file('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  await writeFile(file('leaf.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  await ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('root.key'), '-out', file('root.pem'), '-subj', '/O=localsign tests/CN=Test Root CA', '-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await ossl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file('int.key')]);
  await ossl(['pkey', '-in', file('int.key'), '-pubout', '-out', file('int.pub.pem')]);
  await ossl(['x509', '-new', '-subj', '/O=localsign tests/CN=Test Intermediate CA', '-force_pubkey', file('int.pub.pem'), '-CA', file('root.pem'), '-CAkey', file('root.key'), '-days', '30', '-extfile', file('ca.ext'), '-out', file('int.pem')]);

  const algorithms = options.keys ?? (['rsa', 'p256', 'secp256k1'] as const);
  const visible = options.keysVisibleWithoutLogin === true;
  if (visible) await generateVisibleKeyPairs(secretEnv(pin), label, algorithms.map((a) => ({ ...KEY_SPECS[a], algorithm: a })));

  const keys: SoftHsmKey[] = [];
  for (const algorithm of algorithms) {
    const spec = KEY_SPECS[algorithm];
    if (!visible) {
      await loggedIn(['--keypairgen', '--key-type', spec.keyType, '--id', spec.id, '--label', spec.label, '--usage-sign', ...(options.alwaysAuth ? ['--always-auth'] : [])]);
    }
    await onToken(['--read-object', '--type', 'pubkey', '--id', spec.id, '--output-file', file(`${spec.id}.pub.der`)]);
    const publicKeyInfo = new Uint8Array(await readFile(file(`${spec.id}.pub.der`)));
    let certificate: Uint8Array | null = null;
    let certificateId: string | null = null;
    if (algorithm !== 'secp256k1') {
      // Issue the certificate for the public key read back from the token (`-force_pubkey`: no
      // CSR needed, the private key never leaves the token).
      await ossl(['pkey', '-pubin', '-inform', 'DER', '-in', file(`${spec.id}.pub.der`), '-out', file(`${spec.id}.pub.pem`)]);
      await ossl(['x509', '-new', '-subj', `/O=localsign tests/CN=${spec.label}`, '-force_pubkey', file(`${spec.id}.pub.pem`), '-CA', file('int.pem'), '-CAkey', file('int.key'), '-days', '30', '-extfile', file('leaf.ext'), '-outform', 'DER', '-out', file(`${spec.id}.crt.der`)]);
      certificateId = idLayout === 'matching' ? spec.id : idLayout === 'certificate-differs' ? `a${spec.id.slice(-1)}` : null;
      await loggedIn(['--write-object', file(`${spec.id}.crt.der`), '--type', 'cert', ...(certificateId === null ? [] : ['--id', certificateId]), '--label', spec.label]);
      certificate = new Uint8Array(await readFile(file(`${spec.id}.crt.der`)));
    }
    keys.push({
      id: spec.id,
      label: spec.label,
      algorithm,
      certificate,
      certificateId,
      publicKeyId: spec.id,
      publicKeyInfo,
      alwaysAuthenticate: options.alwaysAuth === true,
      privateKeyPrivate: !visible,
    });
  }

  const without = options.withoutPublicKeys;
  for (const key of keys) {
    const drop = Array.isArray(without) ? without.includes(key.algorithm) : without === true && key.certificate !== null;
    if (!drop) continue;
    await loggedIn(['--delete-object', '--type', 'pubkey', '--id', key.id]);
    key.publicKeyId = null;
  }

  const ca: { intermediate: Uint8Array; root: Uint8Array } = { intermediate: new Uint8Array(), root: new Uint8Array() };
  for (const [name, id] of [['root', 'c0'], ['int', 'c1']] as const) {
    await ossl(['x509', '-in', file(`${name}.pem`), '-outform', 'DER', '-out', file(`${name}.der`)]);
    await loggedIn(['--write-object', file(`${name}.der`), '--type', 'cert', '--id', id, '--label', `${name} CA`]);
    const der = new Uint8Array(await readFile(file(`${name}.der`)));
    if (name === 'root') ca.root = der;
    else ca.intermediate = der;
  }
  // The CA private keys are not needed any more; only the token keeps keys from here on.
  await rm(file('root.key'), { force: true });
  await rm(file('int.key'), { force: true });

  const directory = join(tokenDir, ownDir);
  return {
    conf,
    modulePath: SOFTHSM_MODULE,
    label,
    pin,
    soPin,
    env,
    keys,
    ca,
    directory,
    // Moves the token's own directory (<tokendir>/<uuid>) out and back: the token directory
    // itself stays, as it does on a machine where a device is pulled out.
    // Either one is a no-op when the token already is where it is asked to be.
    async unplug() {
      if (!existsSync(directory)) return;
      await mkdir(parkedDir, { recursive: true });
      await rename(directory, join(parkedDir, ownDir));
    },
    async plug() {
      if (existsSync(directory)) return;
      await rename(join(parkedDir, ownDir), directory);
    },
    async setUserPin(newPin) {
      await p11(['--token-label', label, '--login', '--login-type', 'so', '--so-pin', 'env:LOCALSIGN_TEST_SO_PIN', '--init-pin', '--pin', 'env:LOCALSIGN_TEST_PIN'], newPin);
    },
    pkcs11Tool: (args, toolOptions) =>
      toolOptions?.pin === undefined ? onToken(args) : p11(['--token-label', label, '--login', '--pin', 'env:LOCALSIGN_TEST_PIN', ...args], toolOptions.pin),
    cleanup: () => rm(home.dir, { recursive: true, force: true }),
  };
}

const ROOT = resolve(__dirname, '../..');

/**
 * C_GenerateKeyPair with CKA_PRIVATE false on the private key, which pkcs11-tool cannot ask for.
 * Runs in a child Node process through koffi, so the test process never initialises SoftHSM2
 * itself (one process, one SOFTHSM2_CONF). The PIN arrives in the child's environment only.
 * Templates as pkcs11-tool's `--keypairgen --usage-sign` writes them, CKA_PRIVATE aside.
 */
async function generateVisibleKeyPairs(env: NodeJS.ProcessEnv, tokenLabel: string, keys: { algorithm: TestKeyAlgorithm; id: string; label: string }[]): Promise<void> {
  const koffiPath = createRequire(join(ROOT, 'package.json')).resolve('koffi');
  const job = JSON.stringify({ module: SOFTHSM_MODULE, tokenLabel, koffiPath, keys });
  await tool(process.execPath, ['-e', VISIBLE_KEYGEN_SCRIPT], { ...env, LOCALSIGN_TEST_KEYGEN: job });
}

// CommonJS for `node -e`. Linux x64 ABI: CK_ULONG is 8 bytes, CK_ATTRIBUTE 24, natural packing.
const VISIBLE_KEYGEN_SCRIPT = String.raw`
'use strict';
const job = JSON.parse(process.env.LOCALSIGN_TEST_KEYGEN);
const koffi = require(job.koffiPath);
const UL = 'unsigned long', P = 'void *';
const lib = koffi.load(job.module);
const out = [null];
lib.func('unsigned long C_GetFunctionList(_Out_ void **)')(out);
const list = out[0];
const fn = (index, params) => koffi.decode(koffi.decode(list, 8 + index * 8, P), koffi.proto(UL, params));
const C = {
  Initialize: fn(0, [P]), Finalize: fn(1, [P]), GetSlotList: fn(4, ['uint8_t', P, P]), GetTokenInfo: fn(6, [UL, P]),
  OpenSession: fn(12, [UL, UL, P, P, P]), Login: fn(18, [UL, UL, P, UL]), Logout: fn(19, [UL]), GenerateKeyPair: fn(59, [UL, P, P, UL, P, UL, P, P]),
};
const must = (name, rv) => { if (Number(rv) !== 0) throw new Error(name + ' returned 0x' + Number(rv).toString(16)); };
const ulong = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const bool = (v) => Buffer.from([v ? 1 : 0]);
function template(attrs) {
  const b = Buffer.alloc(24 * attrs.length);
  b.keep = attrs.map(([type, value], i) => {
    b.writeBigUInt64LE(BigInt(type), i * 24);
    b.writeBigUInt64LE(BigInt(koffi.address(value)), i * 24 + 8);
    b.writeBigUInt64LE(BigInt(value.length), i * 24 + 16);
    return value;
  });
  b.count = attrs.length;
  return b;
}
const CKA = { TOKEN: 0x1, PRIVATE: 0x2, LABEL: 0x3, ID: 0x102, SENSITIVE: 0x103, SIGN: 0x108, VERIFY: 0x10a, MODULUS_BITS: 0x121, PUBLIC_EXPONENT: 0x122, EC_PARAMS: 0x180 };
const CURVES = { p256: '06082a8648ce3d030107', secp256k1: '06052b8104000a' };

must('C_Initialize', C.Initialize(null));
try {
  const count = Buffer.alloc(8);
  must('C_GetSlotList', C.GetSlotList(1, null, count));
  const slots = Buffer.alloc(8 * Number(count.readBigUInt64LE()));
  must('C_GetSlotList', C.GetSlotList(1, slots, count));
  let slot = null;
  for (let i = 0; i < Number(count.readBigUInt64LE()); i++) {
    const id = slots.readBigUInt64LE(i * 8);
    const info = Buffer.alloc(512);
    must('C_GetTokenInfo', C.GetTokenInfo(id, info));
    if (info.subarray(0, 32).toString('utf8').trimEnd() === job.tokenLabel) slot = id;
  }
  if (slot === null) throw new Error('no token labelled ' + job.tokenLabel);
  const handle = Buffer.alloc(8);
  must('C_OpenSession', C.OpenSession(slot, 6, null, null, handle));
  const session = handle.readBigUInt64LE();
  const pin = Buffer.from(process.env.LOCALSIGN_TEST_PIN, 'utf8');
  must('C_Login', C.Login(session, 1, pin, pin.length));
  for (const key of job.keys) {
    const id = Buffer.from(key.id, 'hex');
    const label = Buffer.from(key.label, 'utf8');
    const rsa = key.algorithm === 'rsa';
    const mechanism = Buffer.concat([ulong(rsa ? 0x0 : 0x1040), ulong(0), ulong(0)]);
    const pub = template([[CKA.TOKEN, bool(true)], [CKA.VERIFY, bool(true)], [CKA.ID, id], [CKA.LABEL, label],
      ...(rsa ? [[CKA.MODULUS_BITS, ulong(2048)], [CKA.PUBLIC_EXPONENT, Buffer.from('010001', 'hex')]] : [[CKA.EC_PARAMS, Buffer.from(CURVES[key.algorithm], 'hex')]])]);
    const priv = template([[CKA.TOKEN, bool(true)], [CKA.PRIVATE, bool(false)], [CKA.SENSITIVE, bool(true)], [CKA.SIGN, bool(true)], [CKA.ID, id], [CKA.LABEL, label]]);
    must('C_GenerateKeyPair ' + key.label, C.GenerateKeyPair(session, mechanism, pub, pub.count, priv, priv.count, Buffer.alloc(8), Buffer.alloc(8)));
  }
  C.Logout(session);
} finally {
  C.Finalize(null);
}
`;
