import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  algorithmOfCertificate, assembleCms, buildSignedAttributes, certificatesToEmbed, ecdsaDerToRaw, ecdsaRawToDer, estimateCmsSize,
  sha256Chunks,
} from '../../../../src/pades/cms/cms';
import { verifyCmsSignature } from '../../../../src/pades/cms/cms-check';
import { SigningError } from '../../../../src/domain/errors';
import { createTestPki, signDigest, type TestPki } from '../../../helpers/test-pki';
import { tempDir } from '../../../helpers/temp-dir';

const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const DOCUMENT = new TextEncoder().encode('%PDF-1.7 pretend byte ranges of a PDF\n');
const DIGEST = sha256(DOCUMENT);

function asn1(der: Uint8Array): forge.asn1.Asn1 {
  return forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(der).toString('binary')));
}
const derOf = (node: forge.asn1.Asn1): string => Buffer.from(forge.asn1.toDer(node).getBytes(), 'binary').toString('hex');
const kids = (node: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] => node!.value as forge.asn1.Asn1[];
const oidOf = (node: forge.asn1.Asn1 | undefined): string => forge.asn1.derToOid(node!.value as string);

/** openssl's own verdict on a detached CMS over DOCUMENT. */
function opensslCmsVerify(pki: TestPki, cms: Uint8Array): string {
  const dir = tempDir('localsign-cms-');
  writeFileSync(join(dir, 'doc.bin'), DOCUMENT);
  writeFileSync(join(dir, 'sig.der'), cms);
  const r = spawnSync('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'sig.der', '-content', 'doc.bin',
    '-CAfile', pki.caCertPath, '-purpose', 'any', '-out', '/dev/null'], { cwd: dir, encoding: 'utf8' });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`;
}

function signAndAssemble(pki: TestPki, algorithm: 'rsa' | 'p256', digest = DIGEST, signer = pki.chain[0]!) {
  const signedAttributes = buildSignedAttributes({ documentDigest: digest, signerCertificate: signer });
  const raw = signDigest(pki.signerKeyPem, algorithm, sha256(signedAttributes));
  const signatureValue = algorithm === 'rsa' ? raw : ecdsaRawToDer(raw);
  return { signedAttributes, signatureValue, cms: assembleCms({ signedAttributes, signatureValue, certificateChain: pki.chain, algorithm }) };
}

let rsa: TestPki;
let ec: TestPki;
beforeAll(async () => {
  [rsa, ec] = await Promise.all([createTestPki({ algorithm: 'rsa' }), createTestPki({ algorithm: 'p256', intermediate: true })]);
});

describe('buildSignedAttributes', () => {
  it('holds exactly content-type, message-digest, signing-certificate-v2 in DER order', () => {
    const attrs = buildSignedAttributes({ documentDigest: DIGEST, signerCertificate: rsa.chain[0]! });
    expect(attrs[0]).toBe(0x31);
    const dir = tempDir('localsign-attrs-');
    writeFileSync(join(dir, 'attrs.der'), attrs);
    const parsed = execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', join(dir, 'attrs.der')], { encoding: 'utf8' });
    const objects = [...parsed.matchAll(/OBJECT\s+:(\S+)/g)].map((m) => m[1]);
    // The last three are the issuer Name inside ESSCertIDv2.issuerSerial.
    expect(objects).toEqual(['contentType', 'pkcs7-data', 'messageDigest', 'id-smime-aa-signingCertificateV2',
      'countryName', 'organizationName', 'commonName']);
    expect(parsed).not.toContain('signingTime');
    expect(parsed).not.toContain('sha256'); // ESSCertIDv2.hashAlgorithm omitted: SHA-256 is the DEFAULT

    const items = kids(asn1(attrs)).map(derOf);
    expect([...items].sort()).toEqual(items); // X.690 §11.6: ascending as octet strings
    const [ct, md, scv2] = kids(asn1(attrs));
    expect(oidOf(kids(kids(ct)[1])[0])).toBe('1.2.840.113549.1.7.1');
    expect(kids(md)[1]!.value).toHaveLength(1);
    expect(Buffer.from(kids(kids(md)[1])[0]!.value as string, 'binary').toString('hex')).toBe(hex(DIGEST));
    const essCertId = kids(kids(kids(kids(scv2)[1])[0])[0])[0]!;
    const [certHash, issuerSerial] = kids(essCertId);
    expect(Buffer.from(certHash!.value as string, 'binary').toString('hex')).toBe(hex(sha256(rsa.chain[0]!)));
    const tbs = kids(kids(asn1(rsa.chain[0]!))[0]);
    const [generalNames, serial] = kids(issuerSerial);
    const directoryName = kids(generalNames)[0]!;
    expect(directoryName.tagClass).toBe(forge.asn1.Class.CONTEXT_SPECIFIC);
    expect(directoryName.type).toBe(4);
    expect(derOf(kids(directoryName)[0]!)).toBe(derOf(tbs[3]!));
    expect(derOf(serial!)).toBe(derOf(tbs[1]!));
  });

  it('refuses a digest that is not 32 bytes', () => {
    expect(() => buildSignedAttributes({ documentDigest: new Uint8Array(20), signerCertificate: rsa.chain[0]! }))
      .toThrow('documentDigest must be 32 bytes (SHA-256), got 20');
  });
});

describe('certificatesToEmbed', () => {
  it('keeps the signer and intermediates and leaves out a self-signed root', () => {
    expect(certificatesToEmbed(rsa.chain).map(hex)).toEqual(rsa.chain.slice(0, -1).map(hex));
    expect(certificatesToEmbed(ec.chain).map(hex)).toEqual(ec.chain.slice(0, -1).map(hex));
  });
  it('keeps a self-signed signer (its certificate is the one a verifier must find)', () => {
    const root = rsa.chain[rsa.chain.length - 1]!;
    expect(certificatesToEmbed([root]).map(hex)).toEqual([hex(root)]);
  });
});

describe('assembleCms + verifyCmsSignature round trip', () => {
  for (const algorithm of ['rsa', 'p256'] as const) {
    it(`${algorithm}: openssl cms -verify succeeds and verifyCmsSignature returns the parts`, () => {
      const pki = algorithm === 'rsa' ? rsa : ec;
      const { signedAttributes, signatureValue, cms } = signAndAssemble(pki, algorithm);
      expect(opensslCmsVerify(pki, cms)).toContain('CMS Verification successful');
      const got = verifyCmsSignature(cms, DIGEST);
      expect(hex(got.signerCertificate)).toBe(hex(pki.chain[0]!));
      expect(hex(got.signedAttributes)).toBe(hex(signedAttributes));
      expect(hex(got.signatureValue)).toBe(hex(signatureValue));
      expect(got.timestampToken).toBeNull();
      expect(cms.length).toBeLessThanOrEqual(estimateCmsSize(pki.chain, algorithm, false));

      const sd = kids(kids(asn1(cms))[1])[0]!;
      const [version, digestAlgs, encap, certs, signerInfos] = kids(sd);
      expect(derOf(version!)).toBe('020101');
      expect(derOf(digestAlgs!)).toBe('310d300b0609608648016503040201');
      expect(derOf(encap!)).toBe('300b06092a864886f70d010701'); // id-data, no eContent: detached
      // Signer and intermediates, not the self-signed root: the verifier's own anchor (ETSI EN 319 122-1).
      expect(pki.chain.length).toBeGreaterThanOrEqual(2);
      expect(kids(certs).map(derOf)).toEqual(pki.chain.slice(0, -1).map(hex));
      const si = kids(kids(signerInfos)[0]);
      expect(si).toHaveLength(6); // no unsignedAttrs without a token
      expect(derOf(si[4]!)).toBe(algorithm === 'rsa' ? '300d06092a864886f70d0101010500' : '300a06082a8648ce3d040302');
    });
  }

  it('accepts a raw r‖s ECDSA value and stores it as DER', () => {
    const attrs = buildSignedAttributes({ documentDigest: DIGEST, signerCertificate: ec.chain[0]! });
    const raw = signDigest(ec.signerKeyPem, 'p256', sha256(attrs));
    const cms = assembleCms({ signedAttributes: attrs, signatureValue: raw, certificateChain: ec.chain, algorithm: 'p256' });
    expect(hex(verifyCmsSignature(cms, DIGEST).signatureValue)).toBe(hex(ecdsaRawToDer(raw)));
    // A raw value whose first byte happens to be 0x30 (SEQUENCE) is still read as r‖s.
    const odd = new Uint8Array(64).fill(0x11);
    odd[0] = 0x30;
    const oddCms = assembleCms({ signedAttributes: attrs, signatureValue: odd, certificateChain: ec.chain, algorithm: 'p256' });
    const si = kids(kids(kids(kids(asn1(oddCms))[1])[0])[4])[0]!;
    expect(Buffer.from(kids(si)[5]!.value as string, 'binary').toString('hex')).toBe(hex(ecdsaRawToDer(odd)));
  });

  it('rejects a tampered signature, another document and a foreign ESS certificate', async () => {
    const { cms, signatureValue } = signAndAssemble(rsa, 'rsa');
    const tampered = Uint8Array.from(cms);
    const at = Buffer.from(cms).lastIndexOf(Buffer.from(signatureValue));
    tampered[at + 10]! ^= 0x01;
    expect(() => verifyCmsSignature(tampered, DIGEST)).toThrow(
      "CMS check failed: the signature value does not verify with the signer certificate's key");
    expect(opensslCmsVerify(rsa, tampered)).toContain('Verification failure');
    expect(() => verifyCmsSignature(cms, sha256(DIGEST))).toThrow(
      'CMS check failed: the document digest does not match: the signed bytes were changed');
    const foreign = signAndAssemble(rsa, 'rsa', DIGEST, ec.chain[0]!).cms;
    expect(() => verifyCmsSignature(foreign, DIGEST)).toThrow(
      'CMS check failed: ESS signing-certificate-v2 certHash does not match the signer certificate');
    expect(() => verifyCmsSignature(Uint8Array.of(0x30, 0x00), DIGEST)).toThrow(SigningError);
  });

  it('refuses an algorithm that does not match the signer key', () => {
    const attrs = buildSignedAttributes({ documentDigest: DIGEST, signerCertificate: rsa.chain[0]! });
    expect(() => assembleCms({ signedAttributes: attrs, signatureValue: new Uint8Array(72), certificateChain: rsa.chain, algorithm: 'p256' }))
      .toThrow('algorithm p256 does not match the signer certificate key (rsa)');
  });
});

describe('algorithmOfCertificate', () => {
  it('tells rsa from p256 and names refused key types', () => {
    expect(algorithmOfCertificate(rsa.chain[0]!)).toBe('rsa');
    expect(algorithmOfCertificate(ec.chain[0]!)).toBe('p256');
    const dir = tempDir('localsign-alg-');
    for (const [name, keyArgs] of [['EC P-384', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']], ['Ed25519', ['-newkey', 'ed25519']]] as const) {
      const out = join(dir, `${name}.der`);
      execFileSync('openssl', ['req', '-x509', ...keyArgs, '-nodes', '-subj', '/CN=x', '-keyout', join(dir, 'k.pem'), '-outform', 'DER', '-out', out]);
      const der = new Uint8Array(execFileSync('cat', [out]));
      expect(() => algorithmOfCertificate(der)).toThrow(`unsupported signer key type ${name}: only RSA and EC P-256 certificates can sign`);
    }
  });
});

describe('ECDSA encodings', () => {
  it('encodes minimal INTEGERs (leading zeros stripped, 0x00 before a high bit)', () => {
    const raw = new Uint8Array(64);
    raw[0] = 0x80;
    raw[63] = 0x01;
    const der = ecdsaRawToDer(raw);
    expect(hex(der)).toBe(`3026022100${'80'.padEnd(64, '0')}020101`);
    expect(hex(ecdsaDerToRaw(der))).toBe(hex(raw));
    expect(() => ecdsaRawToDer(new Uint8Array(63))).toThrow('ECDSA P-256 raw signature must be 64 bytes (r‖s), got 63');
    expect(() => ecdsaDerToRaw(Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01))).toThrow(SigningError);
  });

  it('round-trips any r‖s and agrees with node:crypto on the DER form', () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const message = new TextEncoder().encode('message');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (raw) => {
        expect(hex(ecdsaDerToRaw(ecdsaRawToDer(raw)))).toBe(hex(raw));
      }),
      { numRuns: 300 },
    );
    for (let i = 0; i < 20; i++) {
      const raw = new Uint8Array(cryptoSign('sha256', message, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }));
      expect(cryptoVerify('sha256', message, key.publicKey, ecdsaRawToDer(raw))).toBe(true);
    }
  });

  it('sha256Chunks hashes the concatenation', () => {
    expect(hex(sha256Chunks([DOCUMENT.subarray(0, 5), DOCUMENT.subarray(5)]))).toBe(hex(DIGEST));
  });
});
