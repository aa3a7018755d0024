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
 * C environment and SoftHSM2 would read /etc/softhsm/softhsm2.conf instead).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export type TestKeyAlgorithm = 'rsa' | 'p256' | 'secp256k1';

export interface SoftHsmKey {
  /** CKA_ID as lowercase hex, as ChipKey.id reports it. */
  id: string;
  label: string;
  algorithm: TestKeyAlgorithm;
  /** DER certificate written to the token with the same CKA_ID (rsa and p256 only). */
  certificate: Uint8Array | null;
}

export interface SoftHsmToken {
  /** Path of this token's softhsm2.conf, the value for SOFTHSM2_CONF. */
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

export async function createSoftHsmToken(options: { label?: string; keys?: TestKeyAlgorithm[] } = {}): Promise<SoftHsmToken> {
  const dir = await mkdtemp(join(tmpdir(), 'localsign-softhsm-'));
  try {
    return await populateToken(dir, options);
  } catch (error) {
    await rm(dir, { recursive: true, force: true }); // no half-made token left in /tmp
    throw error;
  }
}

async function populateToken(dir: string, options: { label?: string; keys?: TestKeyAlgorithm[] }): Promise<SoftHsmToken> {
  const tokenDir = join(dir, 'tokens');
  const parkedDir = join(dir, 'tokens-unplugged');
  await mkdir(tokenDir, { mode: 0o700 });
  const conf = join(dir, 'softhsm2.conf');
  await writeFile(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);

  const label = options.label ?? 'localsign-test';
  const pin = randomBytes(6).toString('hex');
  const soPin = randomBytes(6).toString('hex');
  const env: NodeJS.ProcessEnv = { ...process.env, SOFTHSM2_CONF: conf };
  const secretEnv = (userPin: string): NodeJS.ProcessEnv => ({ ...env, LOCALSIGN_TEST_PIN: userPin, LOCALSIGN_TEST_SO_PIN: soPin });
  const p11 = (args: string[], userPin = pin) =>
    tool('pkcs11-tool', ['--module', SOFTHSM_MODULE, ...args], secretEnv(userPin));
  const onToken = (args: string[]) => p11(['--token-label', label, ...args]);
  const loggedIn = (args: string[]) => onToken(['--login', '--pin', 'env:LOCALSIGN_TEST_PIN', ...args]);

  // An empty token directory shows one free, uninitialised slot with index 0.
  await p11(['--init-token', '--slot-index', '0', '--label', label, '--so-pin', 'env:LOCALSIGN_TEST_SO_PIN']);
  await onToken(['--login', '--login-type', 'so', '--so-pin', 'env:LOCALSIGN_TEST_SO_PIN', '--init-pin', '--pin', 'env:LOCALSIGN_TEST_PIN']);

  const file = (name: string) => join(dir, name);
  const ossl = (args: string[]) => tool('openssl', args, env);
  // Test CA: root -> intermediate -> signers, so `chain` has an order to get right.
  await writeFile(file('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  await writeFile(file('leaf.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  await ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('root.key'), '-out', file('root.pem'), '-subj', '/O=localsign tests/CN=Test Root CA', '-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await ossl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file('int.key')]);
  await ossl(['pkey', '-in', file('int.key'), '-pubout', '-out', file('int.pub.pem')]);
  await ossl(['x509', '-new', '-subj', '/O=localsign tests/CN=Test Intermediate CA', '-force_pubkey', file('int.pub.pem'), '-CA', file('root.pem'), '-CAkey', file('root.key'), '-days', '30', '-extfile', file('ca.ext'), '-out', file('int.pem')]);

  const keys: SoftHsmKey[] = [];
  for (const algorithm of options.keys ?? (['rsa', 'p256', 'secp256k1'] as const)) {
    const spec = KEY_SPECS[algorithm];
    await loggedIn(['--keypairgen', '--key-type', spec.keyType, '--id', spec.id, '--label', spec.label, '--usage-sign']);
    let certificate: Uint8Array | null = null;
    if (algorithm !== 'secp256k1') {
      // Issue the certificate for the public key read back from the token (`-force_pubkey`: no
      // CSR needed, the private key never leaves the token).
      await onToken(['--read-object', '--type', 'pubkey', '--id', spec.id, '--output-file', file(`${spec.id}.pub.der`)]);
      await ossl(['pkey', '-pubin', '-inform', 'DER', '-in', file(`${spec.id}.pub.der`), '-out', file(`${spec.id}.pub.pem`)]);
      await ossl(['x509', '-new', '-subj', `/O=localsign tests/CN=${spec.label}`, '-force_pubkey', file(`${spec.id}.pub.pem`), '-CA', file('int.pem'), '-CAkey', file('int.key'), '-days', '30', '-extfile', file('leaf.ext'), '-outform', 'DER', '-out', file(`${spec.id}.crt.der`)]);
      await loggedIn(['--write-object', file(`${spec.id}.crt.der`), '--type', 'cert', '--id', spec.id, '--label', spec.label]);
      certificate = new Uint8Array(await readFile(file(`${spec.id}.crt.der`)));
    }
    keys.push({ id: spec.id, label: spec.label, algorithm, certificate });
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

  return {
    conf,
    modulePath: SOFTHSM_MODULE,
    label,
    pin,
    soPin,
    env,
    keys,
    ca,
    // Moves the token's own directory (<tokendir>/<uuid>) out and back: the token directory
    // itself stays, as it does on a machine where a device is pulled out.
    async unplug() {
      await mkdir(parkedDir, { recursive: true });
      for (const name of await readdir(tokenDir)) await rename(join(tokenDir, name), join(parkedDir, name));
    },
    async plug() {
      for (const name of await readdir(parkedDir)) await rename(join(parkedDir, name), join(tokenDir, name));
    },
    async setUserPin(newPin) {
      await p11(['--token-label', label, '--login', '--login-type', 'so', '--so-pin', 'env:LOCALSIGN_TEST_SO_PIN', '--init-pin', '--pin', 'env:LOCALSIGN_TEST_PIN'], newPin);
    },
    pkcs11Tool: (args, toolOptions) =>
      toolOptions?.pin === undefined ? onToken(args) : p11(['--token-label', label, '--login', '--pin', 'env:LOCALSIGN_TEST_PIN', ...args], toolOptions.pin),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
