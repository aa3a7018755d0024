/**
 * Independent checks of the double's signatures: `openssl pkeyutl -verify` over the digest as
 * given (RSA with digest:sha256 checks the PKCS#1 v1.5 DigestInfo; ECDSA takes the input as the
 * hash), and the certificate chain read by node:crypto's X509Certificate.
 */
import { execFile } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../../helpers/temp-dir';

const run = promisify(execFile);

export async function opensslVerifyDigest(signerDerBase64: string, digest: Buffer, signature: Buffer): Promise<boolean> {
  const dir = tempDir('localsign-verify-');
  try {
    const cert = new X509Certificate(Buffer.from(signerDerBase64, 'base64'));
    writeFileSync(join(dir, 'pub.pem'), cert.publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(join(dir, 'digest.bin'), digest);
    writeFileSync(join(dir, 'sig.bin'), signature);
    const rsa = cert.publicKey.asymmetricKeyType === 'rsa' ? ['-pkeyopt', 'digest:sha256'] : [];
    await run('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', 'pub.pem', '-in', 'digest.bin', '-sigfile', 'sig.bin', ...rsa], { cwd: dir });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function opensslKeyUsage(derBase64: string): Promise<string> {
  const dir = tempDir('localsign-ku-');
  try {
    writeFileSync(join(dir, 'c.der'), Buffer.from(derBase64, 'base64'));
    const { stdout } = await run('openssl', ['x509', '-inform', 'DER', '-in', 'c.der', '-noout', '-ext', 'keyUsage,extendedKeyUsage'], { cwd: dir });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const randomDigest = (): Buffer => randomBytes(32);
