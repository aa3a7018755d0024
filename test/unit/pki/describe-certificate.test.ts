import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors';
import { describeCertificate } from '../../../src/pki/describe-certificate';
import { createTestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

/** A self-signed certificate made by openssl with the given -subj and serial. */
function opensslCert(subj: string, serial: string): Uint8Array {
  const dir = tempDir('localsign-desc-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-utf8',
    '-subj', subj, '-set_serial', serial, '-days', '30', '-keyout', join(dir, 'k.pem'), '-outform', 'DER', '-out', join(dir, 'c.der')],
  { stdio: 'pipe' });
  return new Uint8Array(readFileSync(join(dir, 'c.der')));
}

describe('describeCertificate', () => {
  it('describes the test PKI signer like openssl does', async () => {
    const pki = await createTestPki({ algorithm: 'rsa', signerCn: 'Demo Signer' });
    const d = describeCertificate(pki.chain[0]!);
    const x = new X509Certificate(pki.chain[0]!);
    expect(d.subject).toBe('CN=Demo Signer,O=localsign test,C=ES');
    expect(d.issuer).toBe('CN=localsign Test Root CA,O=localsign test,C=ES');
    expect(d.serial).toBe(x.serialNumber.toLowerCase().replace(/^(00)+(?=..)/, ''));
    expect(d.not_before).toBe(new Date(x.validFrom).toISOString());
    expect(d.not_after).toBe(new Date(x.validTo).toISOString());
    expect(d.not_before).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  it('escapes RFC 4514 specials, keeps multi-valued RDNs and UTF-8, and strips the sign octet of the serial', () => {
    const der = opensslCert('/C=ES/O=Núñez, S.L./OU=a+UID=b/CN=#Demo <x> "q" ', '0x00ff0a');
    const d = describeCertificate(der);
    expect(d.subject).toBe('CN=\\#Demo \\<x\\> \\"q\\"\\ ,OU=a+UID=b,O=Núñez\\, S.L.,C=ES');
    expect(d.issuer).toBe(d.subject);
    expect(d.serial).toBe('ff0a');
    expect(describeCertificate(opensslCert('/CN=x', '0x05')).serial).toBe('05');
  });

  it('writes attribute types without a short name as dotted OID and #hex (RFC 4514 §2.4)', () => {
    const d = describeCertificate(opensslCert('/businessCategory=abc/CN=y', '7'));
    expect(d.subject).toBe('CN=y,2.5.4.15=#0c03616263');
  });

  it('refuses bytes that are not a certificate', () => {
    expect(() => describeCertificate(Uint8Array.of(1, 2, 3))).toThrow(InvalidInputError);
  });
});
