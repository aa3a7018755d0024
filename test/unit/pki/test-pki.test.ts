import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestPki } from '../../helpers/test-pki';

function toPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64.trim()}\n-----END CERTIFICATE-----\n`;
}

describe('createTestPki (test helper)', () => {
  for (const [algorithm, intermediate] of [['rsa', false], ['p256', true]] as const) {
    it(`builds a ${algorithm} chain (intermediate: ${intermediate}) openssl verifies`, async () => {
      const pki = await createTestPki({ algorithm, intermediate });
      expect(pki.chain.length).toBe(intermediate ? 3 : 2);
      const signerPath = join(pki.dir, 'check-signer.pem');
      writeFileSync(signerPath, toPem(pki.chain[0]!));
      const args = ['verify', '-CAfile', pki.caCertPath];
      if (intermediate) {
        writeFileSync(join(pki.dir, 'check-int.pem'), toPem(pki.chain[1]!));
        args.push('-untrusted', join(pki.dir, 'check-int.pem'));
      }
      const out = execFileSync('openssl', [...args, signerPath], { encoding: 'utf8' });
      expect(out.trim()).toBe(`${signerPath}: OK`);
      const text = execFileSync('openssl', ['x509', '-in', signerPath, '-noout', '-text'], { encoding: 'utf8' });
      expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Non Repudiation/);
      expect(text).not.toContain('Extended Key Usage');
      expect(text).toContain(algorithm === 'rsa' ? 'Public-Key: (2048 bit)' : 'NIST CURVE: P-256');
      expect(pki.signerKeyPem.startsWith('-----BEGIN PRIVATE KEY-----')).toBe(true);
      expect(pki.caCertPem).toBe(toPem(pki.chain[pki.chain.length - 1]!));
    });
  }
});
