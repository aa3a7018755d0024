/**
 * A throw-away PKI made with the real `openssl` CLI: a root CA (optionally an intermediate) and a
 * signer certificate in the profile pdfsig and Adobe accept (CONTRACT `init --embedded`):
 * keyUsage critical digitalSignature + nonRepudiation, and NO extendedKeyUsage.
 * Test-only: it spawns openssl and writes to a temp dir.
 */
import { execFile } from 'node:child_process';
import { constants, createPrivateKey, privateEncrypt, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { p256 } from '@noble/curves/nist.js';
import { tempDir } from './temp-dir';

const run = promisify(execFile);

export interface TestPki {
  /** DER certificates: signer, intermediate (if requested), root. */
  chain: Uint8Array[];
  /** PKCS#8 PEM of the signer's private key. */
  signerKeyPem: string;
  caCertPem: string;
  caCertPath: string;
  dir: string;
}

export interface TestPkiOptions {
  algorithm: 'rsa' | 'p256';
  dir?: string;
  /** Put an intermediate CA between root and signer (chain gets three certificates). */
  intermediate?: boolean;
  /** Subject common name of the signer certificate. */
  signerCn?: string;
}

// RFC 5280 §4.2.1.3/§4.2.1.9: CA certs need basicConstraints CA:TRUE and keyCertSign; the signer
// carries digitalSignature + nonRepudiation (contentCommitment) and no EKU so that pdfsig/Adobe accept it.
// tls_server (the platform double's HTTPS): serverAuth EKU and the loopback names as SANs (RFC 6125 §6).
export const PKI_OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[tls_server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`;

export async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? e.message}`);
  }
}

export async function generateKey(algorithm: 'rsa' | 'p256', out: string, cwd: string): Promise<void> {
  const opts =
    algorithm === 'rsa'
      ? ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']
      : ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  await openssl(['genpkey', ...opts, '-out', out], cwd);
}

function serialHex(): string {
  const bytes = randomBytes(12);
  bytes[0] = (bytes[0]! & 0x7f) | 0x10; // positive, no leading zero byte (RFC 5280 §4.1.2.2)
  return `0x${bytes.toString('hex')}`;
}

/** `name`.pem from `name`.key, issued by `issuer`.pem/.key in `cwd` (which holds pki.cnf). */
export async function issue(
  cwd: string,
  name: string,
  subject: string,
  issuer: string,
  section: 'v3_ca' | 'signer' | 'tls_server',
): Promise<void> {
  await openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-config', 'pki.cnf', '-out', `${name}.csr`], cwd);
  await openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`,
      '-set_serial', serialHex(), '-days', '825', '-sha256',
      '-extfile', 'pki.cnf', '-extensions', section, '-out', `${name}.pem`],
    cwd,
  );
}

/** A self-signed CA certificate `name`.pem from `name`.key in `cwd` (which holds pki.cnf). */
export async function selfSignRoot(cwd: string, name: string, subject: string): Promise<void> {
  await openssl(
    ['req', '-x509', '-new', '-key', `${name}.key`, '-subj', subject,
      '-days', '3650', '-sha256', '-set_serial', serialHex(),
      '-config', 'pki.cnf', '-extensions', 'v3_ca', '-out', `${name}.pem`],
    cwd,
  );
}

export function pemToDer(pem: string): Uint8Array {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  return new Uint8Array(Buffer.from(body, 'base64'));
}

export async function createTestPki(options: TestPkiOptions): Promise<TestPki> {
  const dir = options.dir ?? tempDir('localsign-pki-');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'pki.cnf'), PKI_OPENSSL_CONFIG);
  const alg = options.algorithm;

  await generateKey(alg, 'root.key', dir);
  await selfSignRoot(dir, 'root', '/C=ES/O=localsign test/CN=localsign Test Root CA');
  let issuer = 'root';
  const names = ['signer'];
  if (options.intermediate) {
    await generateKey(alg, 'intermediate.key', dir);
    await issue(dir, 'intermediate', '/C=ES/O=localsign test/CN=localsign Test Intermediate CA', 'root', 'v3_ca');
    issuer = 'intermediate';
    names.push('intermediate');
  }
  names.push('root');
  await generateKey(alg, 'signer.key', dir);
  const cn = options.signerCn ?? 'Test Signer';
  await issue(dir, 'signer', `/C=ES/O=localsign test/CN=${cn}`, issuer, 'signer');

  const caCertPath = join(dir, 'root.pem');
  return {
    chain: names.map((n) => pemToDer(readFileSync(join(dir, `${n}.pem`), 'utf8'))),
    signerKeyPem: readFileSync(join(dir, 'signer.key'), 'utf8'),
    caCertPem: readFileSync(caCertPath, 'utf8'),
    caCertPath,
    dir,
  };
}

// RFC 8017 §9.2 note 1: DER prefix of DigestInfo { sha256, NULL } before the 32-byte hash.
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * Signs a SHA-256 digest the way a chip does (Chip.signDigest): RSA PKCS#1 v1.5 over DigestInfo,
 * or ECDSA P-256 raw r‖s (64 bytes, CKM_ECDSA) with @noble/curves.
 */
export function signDigest(keyPem: string, algorithm: 'rsa' | 'p256', digest: Uint8Array): Uint8Array {
  if (algorithm === 'rsa') {
    const input = Buffer.concat([SHA256_DIGEST_INFO, digest]);
    return new Uint8Array(privateEncrypt({ key: keyPem, padding: constants.RSA_PKCS1_PADDING }, input));
  }
  const jwk = createPrivateKey(keyPem).export({ format: 'jwk' });
  const d = Buffer.from(jwk.d ?? '', 'base64url');
  return p256.sign(digest, d, { prehash: false });
}
