/**
 * The double's keys, made with the openssl CLI (test-pki.ts building blocks) in `dir`: one root
 * (RSA-2048) over two issuing CAs (RSA-2048, P-256), each over a signer with keyUsage
 * digitalSignature + nonRepudiation and no EKU; a "wrong" key of each kind (Settings.wrong_key);
 * a secp256k1 wallet; in HTTPS mode a separate TLS CA and a server certificate for 127.0.0.1.
 * A dir that already holds the files is reused (tests may share one to save the RSA keygen).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { generateKey, issue, PKI_OPENSSL_CONFIG, pemToDer, selfSignRoot } from '../test-pki';

export interface DoublePki {
  dir: string;
  rootPem: string;
  rsa: { keyPem: string; wrongKeyPem: string; chain: Uint8Array[] };
  p256: { keyPem: string; wrongKeyPem: string; chain: Uint8Array[] };
  wallet: { privateKey: Uint8Array; wrongKey: Uint8Array; address: string };
  tls: { keyPem: string; certPem: string; caPemPath: string } | null;
}

const SUBJECT = '/C=ES/O=localsign platform double';

/** EIP-55: hex address, a letter upper-cased where the keccak of the lowercase hex has a nibble >= 8. */
export function eip55Address(publicKeyUncompressed: Uint8Array): string {
  const hex = Buffer.from(keccak_256(publicKeyUncompressed.subarray(1)).subarray(12)).toString('hex');
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(hex))).toString('hex');
  return `0x${[...hex].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}

function walletKey(dir: string, name: string): Uint8Array {
  const path = join(dir, name);
  if (!existsSync(path)) writeFileSync(path, Buffer.from(secp256k1.utils.randomSecretKey()).toString('hex'));
  return new Uint8Array(Buffer.from(readFileSync(path, 'utf8').trim(), 'hex'));
}

async function makeSigningPki(dir: string): Promise<void> {
  if (existsSync(join(dir, 'signer-p256.pem'))) return;
  writeFileSync(join(dir, 'pki.cnf'), PKI_OPENSSL_CONFIG);
  const keys: [string, 'rsa' | 'p256'][] = [
    ['root', 'rsa'], ['ca-rsa', 'rsa'], ['signer-rsa', 'rsa'], ['wrong-rsa', 'rsa'],
    ['ca-p256', 'p256'], ['signer-p256', 'p256'], ['wrong-p256', 'p256'],
  ];
  await Promise.all(keys.map(([name, alg]) => generateKey(alg, `${name}.key`, dir)));
  await selfSignRoot(dir, 'root', `${SUBJECT}/CN=Platform Double Root CA`);
  await issue(dir, 'ca-rsa', `${SUBJECT}/CN=Platform Double Issuing CA RSA`, 'root', 'v3_ca');
  await issue(dir, 'ca-p256', `${SUBJECT}/CN=Platform Double Issuing CA P-256`, 'root', 'v3_ca');
  await issue(dir, 'signer-rsa', `${SUBJECT}/CN=Platform Signer RSA`, 'ca-rsa', 'signer');
  // Written last: its presence says the whole set is there.
  await issue(dir, 'signer-p256', `${SUBJECT}/CN=Platform Signer P-256`, 'ca-p256', 'signer');
  writeFileSync(join(dir, 'root.der'), pemToDer(readFileSync(join(dir, 'root.pem'), 'utf8')));
}

async function makeTlsPki(dir: string): Promise<void> {
  if (existsSync(join(dir, 'tls.pem'))) return;
  writeFileSync(join(dir, 'pki.cnf'), PKI_OPENSSL_CONFIG);
  await Promise.all([generateKey('p256', 'tls-ca.key', dir), generateKey('p256', 'tls.key', dir)]);
  await selfSignRoot(dir, 'tls-ca', `${SUBJECT}/CN=Platform Double TLS Test CA`);
  await issue(dir, 'tls', `${SUBJECT}/CN=localhost`, 'tls-ca', 'tls_server');
}

export async function loadDoublePki(dir: string, https: boolean): Promise<DoublePki> {
  await Promise.all([makeSigningPki(dir), https ? makeTlsPki(dir) : Promise.resolve()]);
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  const chain = (names: string[]): Uint8Array[] => names.map((n) => pemToDer(read(`${n}.pem`)));
  const privateKey = walletKey(dir, 'wallet.hex');
  return {
    dir,
    rootPem: read('root.pem'),
    rsa: { keyPem: read('signer-rsa.key'), wrongKeyPem: read('wrong-rsa.key'), chain: chain(['signer-rsa', 'ca-rsa', 'root']) },
    p256: { keyPem: read('signer-p256.key'), wrongKeyPem: read('wrong-p256.key'), chain: chain(['signer-p256', 'ca-p256', 'root']) },
    wallet: {
      privateKey,
      wrongKey: walletKey(dir, 'wrong-wallet.hex'),
      address: eip55Address(secp256k1.getPublicKey(privateKey, false)),
    },
    tls: https ? { keyPem: read('tls.key'), certPem: read('tls.pem'), caPemPath: join(dir, 'tls-ca.pem') } : null,
  };
}

/** Random ids with a prefix, like the service's own (`agt_…`, `inc_…`). */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}
