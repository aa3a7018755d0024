import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { assembleCms, buildSignedAttributes, ecdsaRawToDer } from '../../../src/pades/cms/cms';
import { verifyCmsSignature } from '../../../src/pades/cms/cms-check';
import { describeCertificate } from '../../../src/pki/describe-certificate';
import { issueCertificate, type IssueCertificateOptions } from '../../../src/pki/issue-certificate';
import { checkCrl, issueCrl, parseCrl } from '../../../src/pki/crl';
import { crlUrls } from '../../../src/der/x509-extensions';
import { tempDir } from '../../helpers/temp-dir';

const toPem = (der: Uint8Array): string =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').trim()}\n-----END CERTIFICATE-----\n`;
const spki = (k: KeyObject): Uint8Array => new Uint8Array(k.export({ type: 'spki', format: 'der' }));
const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());

function openssl(args: string[], cwd: string): string {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`;
}

const CA_NAME = { CN: 'localsign Demo CA', O: 'localsign demo', C: 'ES' };
const SIGNER_NAME = { CN: 'Demo Signer', O: 'localsign demo', C: 'ES' };

function demoPki(algorithm: 'rsa' | 'p256') {
  const ca = algorithm === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caSign = (tbs: Uint8Array) => new Uint8Array(cryptoSign('sha256', tbs, ca.privateKey)); // ECDSA: DER
  const root = issueCertificate({
    subject: CA_NAME, issuer: 'self', subjectPublicKey: spki(ca.publicKey), serial: Uint8Array.of(0x01),
    notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2051-06-30T12:00:00Z'),
    ca: true, issuerAlgorithm: algorithm, sign: caSign,
  });
  // The signer key is always P-256. A P-256 CA signs the signer certificate returning raw r‖s
  // (as a chip would), so both ECDSA encodings of `sign` are exercised.
  const caSignRaw = (tbs: Uint8Array) =>
    new Uint8Array(cryptoSign('sha256', tbs, algorithm === 'rsa' ? ca.privateKey : { key: ca.privateKey, dsaEncoding: 'ieee-p1363' }));
  const signerPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signerSecret = new Uint8Array(Buffer.from(signerPair.privateKey.export({ format: 'jwk' }).d!, 'base64url'));
  const signerKey = spki(signerPair.publicKey);
  const signer = issueCertificate({
    subject: SIGNER_NAME, issuer: CA_NAME, subjectPublicKey: signerKey, serial: Uint8Array.of(0x8f, 0x01, 0x02),
    notBefore: new Date('2026-11-22T10:00:00Z'), notAfter: new Date('2028-11-22T10:00:00Z'),
    ca: false, issuerAlgorithm: algorithm, sign: caSignRaw, issuerCertificate: root,
  });
  return { root, signer, signerSecret };
}

describe('issueCertificate', () => {
  for (const algorithm of ['rsa', 'p256'] as const) {
    it(`${algorithm} CA: openssl parses and verifies the chain, describeCertificate gives the exact strings`, () => {
      const { root, signer } = demoPki(algorithm);
      const dir = tempDir('localsign-issue-');
      writeFileSync(join(dir, 'root.pem'), toPem(root));
      writeFileSync(join(dir, 'signer.pem'), toPem(signer));
      expect(openssl(['verify', '-CAfile', 'root.pem', 'signer.pem'], dir).trim()).toBe('signer.pem: OK');

      const rootText = openssl(['x509', '-in', 'root.pem', '-noout', '-text'], dir);
      expect(rootText).toMatch(/X509v3 Basic Constraints: critical\s+CA:TRUE\n/);
      expect(rootText).toMatch(/X509v3 Key Usage: critical\s+Certificate Sign, CRL Sign\n/);
      expect(rootText).toContain(algorithm === 'rsa' ? 'Signature Algorithm: sha256WithRSAEncryption' : 'Signature Algorithm: ecdsa-with-SHA256');
      const text = openssl(['x509', '-in', 'signer.pem', '-noout', '-text'], dir);
      expect(text).toContain('Version: 3 (0x2)');
      expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE\n/);
      expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Non Repudiation\n/);
      expect(text).not.toContain('Extended Key Usage');
      const rootSki = /Subject Key Identifier:\s+([0-9A-F:]+)/.exec(rootText)![1];
      expect(text).toMatch(new RegExp(`Authority Key Identifier:\\s+(keyid:)?${rootSki}\\n`));
      expect(openssl(['x509', '-in', 'signer.pem', '-noout', '-serial', '-dates'], dir)).toBe(
        'serial=8F0102\nnotBefore=Nov 22 10:00:00 2026 GMT\nnotAfter=Nov 22 10:00:00 2028 GMT\n');

      expect(describeCertificate(signer)).toEqual({
        subject: 'CN=Demo Signer,O=localsign demo,C=ES',
        issuer: 'CN=localsign Demo CA,O=localsign demo,C=ES',
        serial: '8f0102',
        not_before: '2026-11-22T10:00:00.000Z',
        not_after: '2028-11-22T10:00:00.000Z',
      });
      // 2051 is past UTCTime's range: GeneralizedTime (RFC 5280 §4.1.2.5).
      expect(describeCertificate(root).not_after).toBe('2051-06-30T12:00:00.000Z');
      expect(openssl(['x509', '-in', 'root.pem', '-noout', '-enddate'], dir)).toBe('notAfter=Jun 30 12:00:00 2051 GMT\n');
    });
  }

  it('gives a demo signer whose CAdES signature openssl cms -verify accepts', () => {
    const { root, signer, signerSecret } = demoPki('p256');
    const dir = tempDir('localsign-issue-cms-');
    const doc = new TextEncoder().encode('demo document');
    const attrs = buildSignedAttributes({ documentDigest: sha256(doc), signerCertificate: signer });
    const sig = ecdsaRawToDer(p256.sign(sha256(attrs), signerSecret, { prehash: false }));
    const cms = assembleCms({ signedAttributes: attrs, signatureValue: sig, certificateChain: [signer, root], algorithm: 'p256' });
    expect(verifyCmsSignature(cms, sha256(doc)).signerCertificate).toEqual(signer);
    writeFileSync(join(dir, 'root.pem'), toPem(root));
    writeFileSync(join(dir, 'doc.bin'), doc);
    writeFileSync(join(dir, 'cms.der'), cms);
    expect(openssl(['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'cms.der', '-content', 'doc.bin', '-CAfile', 'root.pem',
      '-purpose', 'any', '-out', '/dev/null'], dir)).toContain('CMS Verification successful');
  });

  it('names a CRL distribution point, and issues a CRL openssl verifies with the CA (the demo CA at init)', () => {
    const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const caSign = (tbs: Uint8Array) => new Uint8Array(cryptoSign('sha256', tbs, ca.privateKey));
    const root = issueCertificate({
      subject: CA_NAME, issuer: 'self', subjectPublicKey: spki(ca.publicKey), serial: Uint8Array.of(0x01),
      notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2036-01-01T00:00:00Z'), ca: true, issuerAlgorithm: 'p256', sign: caSign,
    });
    const url = 'http://127.0.0.1:8300/pki/demo-ca.crl';
    const signer = issueCertificate({
      subject: SIGNER_NAME, issuer: CA_NAME, subjectPublicKey: spki(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey), serial: Uint8Array.of(0x22),
      notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2028-01-01T00:00:00Z'), ca: false, issuerAlgorithm: 'p256', sign: caSign,
      issuerCertificate: root, crlUrls: [url],
    });
    expect(crlUrls(signer)).toEqual([url]);
    const crl = issueCrl({ issuerCertificate: root, issuerAlgorithm: 'p256', thisUpdate: new Date('2026-01-01T00:00:00Z'), nextUpdate: new Date('2036-01-01T00:00:00Z'), crlNumber: 1, sign: caSign });
    expect(checkCrl(parseCrl(crl), signer, root)).toMatchObject({ status: 'good', nextUpdate: new Date('2036-01-01T00:00:00Z') });
    const dir = tempDir('localsign-issue-crl-');
    writeFileSync(join(dir, 'root.pem'), toPem(root));
    writeFileSync(join(dir, 'signer.pem'), toPem(signer));
    writeFileSync(join(dir, 'crl.der'), crl);
    expect(openssl(['x509', '-in', 'signer.pem', '-noout', '-ext', 'crlDistributionPoints'], dir)).toContain(`URI:${url}`);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'crl.der', '-CAfile', 'root.pem', '-noout', '-text'], dir);
    expect(text).toContain('verify OK');
    expect(text).toMatch(/X509v3 CRL Number:\s+1\n/);
    expect(text).toContain('No Revoked Certificates.');
  });

  it('refuses inputs that would make a broken certificate', () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const base: IssueCertificateOptions = {
      subject: SIGNER_NAME, issuer: 'self', subjectPublicKey: spki(key.publicKey), serial: Uint8Array.of(1),
      notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z'), ca: false,
      issuerAlgorithm: 'p256', sign: (tbs) => new Uint8Array(cryptoSign('sha256', tbs, key.privateKey)),
    };
    expect(() => issueCertificate({ ...base, issuer: CA_NAME })).toThrow(
      'issuerCertificate is required unless issuer is "self" (it gives the issuer name and key id)');
    expect(() => issueCertificate({ ...base, serial: Uint8Array.of(0, 0) })).toThrow(/^certificate serial must be non-zero/);
    expect(() => issueCertificate({ ...base, serial: new Uint8Array(20).fill(0xff) })).toThrow(/^certificate serial must be non-zero/);
    expect(() => issueCertificate({ ...base, notAfter: base.notBefore })).toThrow('certificate notAfter must be after notBefore');
    expect(() => issueCertificate({ ...base, subject: { CN: 'x', C: 'Spain' } })).toThrow(
      'certificate country C must be two capital letters (ISO 3166), got "Spain"');
  });
});
