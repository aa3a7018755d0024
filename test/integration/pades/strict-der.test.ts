/**
 * A certificate is DER (RFC 5280 §4.1), and one that is not is refused with the cause named
 * (issue 28): a signer certificate whose serial number has a needless leading zero octet (X.690
 * §8.3.2), its TBSCertificate signed again by its CA as such a CA would, in a signature that is
 * otherwise sound. openssl refuses the certificate, pdfsig does not call the signature valid, and
 * localsign names the field and the clause, where it used to read the INTEGER leniently.
 */
import { sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateDerViolation } from '../../../src/der/certificate-fields';
import { children, concat, readDerExact, seq, tlv, TAG } from '../../../src/der/der';
import { assembleCms, buildSignedAttributes, sha256Chunks } from '../../../src/pades/cms/cms';
import { validatePdf } from '../../../src/pades/validate/validate';
import { readPathCertificate } from '../../../src/pki/path-certificate';
import { placeholder, smallPdf, withCms } from '../../helpers/external-cms';
import { runPdfsig, runTool } from '../../helpers/pdf-tools';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';

let dir: string;
let pki: TestPki;
let padded: Uint8Array;

/** `cert` with its serial's INTEGER given a needless 0x00 (the value unchanged), its TBS signed again with `caKeyPem`. */
function padSerial(cert: Uint8Array, caKeyPem: string): Uint8Array {
  const [tbs, algorithm] = children(readDerExact(cert));
  const fields = children(tbs!);
  const serial = fields[1]!;
  const tbsPadded = seq(...fields.map((f) => (f === serial ? tlv(TAG.INTEGER, concat([Uint8Array.of(0), serial.content])) : f.raw)));
  const value = new Uint8Array(cryptoSign('sha256', tbsPadded, caKeyPem));
  return seq(tbsPadded, algorithm!.raw, tlv(TAG.BIT_STRING, Uint8Array.of(0), value));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'localsign-strict-der-'));
  pki = await createTestPki({ algorithm: 'rsa', dir: join(dir, 'pki'), signerCn: 'Padded Serial Signer' });
  padded = padSerial(pki.chain[0]!, readFileSync(join(pki.dir, 'root.key'), 'utf8'));
  writeFileSync(join(dir, 'padded.der'), padded);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a certificate that is not DER', () => {
  it('openssl refuses it; localsign names the field and the clause', async () => {
    const r = await runTool('openssl', ['x509', '-inform', 'DER', '-in', join(dir, 'padded.der'), '-noout', '-serial']);
    expect(r.code).not.toBe(0);
    expect(certificateDerViolation(pki.chain[0]!)).toBeNull();
    expect(certificateDerViolation(padded)).toBe('serialNumber: an INTEGER with a needless leading 0x00 octet at offset 13 (X.690 §8.3.2)');
    expect(() => readPathCertificate(padded)).toThrow('it is not DER (RFC 5280 §4.1): serialNumber: an INTEGER with a needless leading 0x00 octet at offset 13 (X.690 §8.3.2)');
  });

  it('a signature by it is invalid, the cause named, where pdfsig does not call it valid either', async () => {
    // The engine's placeholder (node:crypto itself refuses the padded certificate), then the CMS of a signer that carries it.
    const frame = await placeholder(await smallPdf(), pki);
    const chain = [padded, pki.chain[1]!];
    const signedAttributes = buildSignedAttributes({ documentDigest: sha256Chunks([frame.signedBytes]), signerCertificate: padded });
    const cms = assembleCms({ signedAttributes, signatureValue: signDigest(pki.signerKeyPem, 'rsa', sha256Chunks([signedAttributes])), certificateChain: chain, algorithm: 'rsa' });
    const pdf = withCms(frame, cms);
    const file = join(dir, 'padded.pdf');
    writeFileSync(file, pdf);
    const s = validatePdf(pdf, { trustAnchors: [pki.chain[1]!], now: new Date(), revocation: 'if-available' }).signatures[0]!;
    expect(s.valid).toBe(false);
    expect(s.problems).toContain('the signer certificate is not DER (RFC 5280 §4.1): serialNumber: an INTEGER with a needless leading 0x00 octet at offset 13 (X.690 §8.3.2)');
    expect(s.chain.trusted).toBe(false);
    expect(s.chain.failures[0]).toMatch(/^the certificate CN=Padded Serial Signer,O=localsign test,C=ES cannot be read: it is not DER \(RFC 5280 §4\.1\): serialNumber: /);
    const pdfsig = await runPdfsig(file);
    expect(pdfsig.signatures.filter((x) => x.signed).map((x) => x.signatureValid)).not.toContain(true);
  });
});
