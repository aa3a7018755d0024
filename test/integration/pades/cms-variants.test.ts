/**
 * Signatures made by other software's CMS encodings (issue 17): the engine's placeholder signed
 * with `openssl cms -sign` as BER (`-stream`: indefinite lengths, a constructed OCTET STRING),
 * without signed attributes (`-noattr`), encapsulating the content (`-nodetach`), and by hand
 * with signed attributes stored out of DER order. Each verdict of validatePdf set beside
 * `openssl cms -verify` over the /ByteRange's bytes and pdfsig's.
 *
 * pdfsig (poppler 22.12, NSS) cannot judge an encapsulating CMS whose content is the document:
 * it takes any eContent for adbe.pkcs7.sha1's digest and compares it with the digest of the
 * /ByteRange ("Digest Mismatch."); openssl, which reads RFC 5652 as written, is the judge there.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestWith } from '../../../src/pades/cms/cms-check';
import { validatePdf, type SignatureReport } from '../../../src/pades/validate/validate';
import { OID } from '../../../src/der/oids';
import {
  detachBer, opensslSign, opensslVerify, placeholder, reorderSignedAttributes, smallPdf, withCms, type Placeholder,
} from '../../helpers/external-cms';
import { extractCms, runPdfsig, type PdfsigSignature } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let pki: TestPki;
let dir: string;
let pdf: Uint8Array;

beforeAll(async () => {
  dir = tempDir('localsign-cms-variants-');
  pki = await createTestPki({ algorithm: 'rsa', intermediate: true, signerCn: 'External Signer' });
  pdf = await smallPdf();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function judge(signed: Uint8Array): SignatureReport {
  // These documents carry no revocation data: what is judged is the CMS, so its absence is let pass.
  const report = validatePdf(signed, { trustAnchors: [pki.chain.at(-1)!], now: new Date(), revocation: 'if-available' });
  expect(report.signatures).toHaveLength(1);
  return report.signatures[0]!;
}

async function pdfsigOf(name: string, signed: Uint8Array): Promise<PdfsigSignature> {
  const file = join(dir, name);
  writeFileSync(file, signed);
  const r = await runPdfsig(file);
  expect(r.signatures, r.raw).toHaveLength(1);
  return r.signatures[0]!;
}

/** The first byte of the document's own text, inside the first signed range: a change every verifier must see. */
function tamper(signed: Uint8Array): Uint8Array {
  const out = signed.slice();
  const at = Buffer.from(out).indexOf('%PDF-1.') + 7;
  out[at] = out[at]! ^ 0x01;
  return out;
}

const TRUSTED = { trusted: true, failures: [] };

describe('CMS encodings from elsewhere, against openssl cms -verify and pdfsig', () => {
  let p: Placeholder;
  beforeAll(async () => {
    p = await placeholder(pdf, pki);
  });

  it('BER (openssl -stream): indefinite lengths and the content in a constructed OCTET STRING are read; encapsulated, so no level', async () => {
    const cms = await opensslSign(pki, p.signedBytes, ['-stream', '-cades']);
    // What -stream writes: ContentInfo, [0] and SignedData of indefinite length, eContent a constructed OCTET STRING.
    expect(Buffer.from(cms.subarray(0, 2)).toString('hex')).toBe('3080');
    expect(Buffer.from(cms).includes(Buffer.from('a0802480', 'hex'))).toBe(true);
    expect(p.signedBytes.length).toBeGreaterThan(4096); // so in two segments at least: 04 82 10 00 <4096 octets> …
    expect(Buffer.from(cms).includes(Buffer.from('04821000', 'hex'))).toBe(true);
    const ossl = await opensslVerify(cms, null, pki.caCertPath);
    expect(ossl.ok, ossl.raw).toBe(true);
    expect(Buffer.from(ossl.content).equals(Buffer.from(p.signedBytes))).toBe(true);

    const signed = withCms(p, cms);
    // The CMS read back from /Contents is the BER as written (the trailing zeros are padding).
    expect(Buffer.from(extractCms(signed, 0).cms).equals(Buffer.from(cms))).toBe(true);
    const r = judge(signed);
    expect(r).toMatchObject({ digestValid: true, valid: true, level: null, problems: [], chain: TRUSTED, subFilter: 'ETSI.CAdES.detached' });
    // pdfsig compares the eContent with the /ByteRange's SHA-256 (see the top): not a judgement of this CMS.
    expect((await pdfsigOf('ber.pdf', signed)).validation).toBe('Digest Mismatch.');

    const bad = tamper(signed);
    expect(judge(bad)).toMatchObject({ digestValid: false, valid: false });
    expect(judge(bad).problems[0]).toBe('the encapsulated content is not the signed byte range');
    // openssl still verifies the CMS alone, but the content it signed is no longer what the /ByteRange covers.
    expect(Buffer.from(ossl.content).equals(Buffer.from(tamper(p.signedBytes)))).toBe(false);
  });

  it('BER detached (the -stream CMS without its eContent, as Acrobat streams it): valid at B-B', async () => {
    const cms = detachBer(await opensslSign(pki, p.signedBytes, ['-stream', '-cades']));
    expect(Buffer.from(cms.subarray(0, 2)).toString('hex')).toBe('3080');
    const ossl = await opensslVerify(cms, p.signedBytes, pki.caCertPath);
    expect(ossl.ok, ossl.raw).toBe(true);
    const signed = withCms(p, cms);
    expect(judge(signed)).toMatchObject({ digestValid: true, valid: true, level: 'B-B', problems: [], chain: TRUSTED });
    expect((await pdfsigOf('ber-detached.pdf', signed)).signatureValid).toBe(true);

    const bad = tamper(signed);
    expect(judge(bad)).toMatchObject({ digestValid: false, valid: false, level: null, problems: ['the document digest does not match: the signed bytes were changed'] });
    expect((await opensslVerify(cms, tamper(p.signedBytes), pki.caCertPath)).ok).toBe(false);
    expect((await pdfsigOf('ber-detached-tampered.pdf', bad)).signatureValid).toBe(false);
  });

  it.each(['ETSI.CAdES.detached', 'adbe.pkcs7.detached'])('-noattr under /SubFilter %s: the signature over the content itself, valid, no level', async (subFilter) => {
    const q = await placeholder(pdf, pki, subFilter);
    const cms = await opensslSign(pki, q.signedBytes, ['-noattr']);
    const ossl = await opensslVerify(cms, q.signedBytes, pki.caCertPath);
    expect(ossl.ok, ossl.raw).toBe(true);
    const signed = withCms(q, cms);
    expect(judge(signed)).toMatchObject({ digestValid: true, valid: true, level: null, problems: [], chain: TRUSTED, subFilter });
    expect((await pdfsigOf(`noattr-${subFilter}.pdf`, signed)).signatureValid).toBe(true);

    const bad = tamper(signed);
    expect(judge(bad)).toMatchObject({ digestValid: false, valid: false, problems: ["the signature value does not verify with the signer certificate's key"] });
    expect((await opensslVerify(cms, tamper(q.signedBytes), pki.caCertPath)).ok).toBe(false);
    expect((await pdfsigOf(`noattr-${subFilter}-tampered.pdf`, bad)).signatureValid).toBe(false);
  });

  it('-nodetach (DER, the /ByteRange bytes encapsulated) with ESS signing-certificate-v2: valid, but not detached ETSI: no level', async () => {
    const cms = await opensslSign(pki, p.signedBytes, ['-nodetach', '-cades']);
    expect(cms[1]).not.toBe(0x80);
    const ossl = await opensslVerify(cms, null, pki.caCertPath);
    expect(ossl.ok, ossl.raw).toBe(true);
    const signed = withCms(p, cms);
    expect(judge(signed)).toMatchObject({ digestValid: true, valid: true, level: null, problems: [], chain: TRUSTED });
    expect((await pdfsigOf('nodetach.pdf', signed)).validation).toBe('Digest Mismatch.'); // see the top
    // The same signature with the content detached is the B-B one: the level follows the encoding.
    const detached = await opensslSign(pki, p.signedBytes, ['-cades']);
    expect(judge(withCms(p, detached))).toMatchObject({ valid: true, level: 'B-B' });
  });

  it('adbe.pkcs7.sha1 (ISO 32000-1 §12.8.3.3.1: the SHA-1 of the /ByteRange encapsulated, signed with SHA-1): intact, no level, and SHA-1 too weak to trust', async () => {
    const q = await placeholder(pdf, pki, 'adbe.pkcs7.sha1');
    const sha1 = digestWith(OID.sha1, [q.signedBytes])!;
    const cms = await opensslSign(pki, sha1, ['-nodetach'], 'sha1');
    expect((await opensslVerify(cms, null, pki.caCertPath)).ok).toBe(true);
    const signed = withCms(q, cms);
    // ETSI TS 119 312 (as EU DSS encodes it): SHA-1 is not acceptable for signatures since 2009.
    expect(judge(signed)).toMatchObject({ digestValid: true, valid: false, level: null, subFilter: 'adbe.pkcs7.sha1', algorithms: { digest: 'SHA-1', signature: 'RSA with SHA-1' } });
    expect(judge(signed).problems).toEqual([expect.stringMatching(/^too weak to trust: SHA-1 is acceptable for signatures until 2009 \(ETSI TS 119 312\)/)]);
    expect((await pdfsigOf('sha1.pdf', signed)).signatureValid).toBe(true);
    const bad = tamper(signed);
    expect(judge(bad)).toMatchObject({ digestValid: false, valid: false });
    expect(judge(bad).problems[0]).toBe('the encapsulated content is not the signed byte range');
    expect((await pdfsigOf('sha1-tampered.pdf', bad)).validation).toBe('Digest Mismatch.');
  });

  it('signed attributes stored out of DER order (hand-made): digest invalid, "signed attributes not DER-encoded", where openssl keeps the order and says valid', async () => {
    const der = await opensslSign(pki, p.signedBytes, ['-cades']);
    expect(judge(withCms(p, der))).toMatchObject({ valid: true, level: 'B-B' });

    // Signed as stored: OpenSSL verifies over the order it read (ASN1_TFLG_SET_ORDER), so it accepts it;
    // RFC 5652 §5.4 and DSS hash the DER encoding, which this is not.
    const stored = reorderSignedAttributes(der, pki.signerKeyPem, 'stored');
    const ossl = await opensslVerify(stored, p.signedBytes, pki.caCertPath);
    expect(ossl.ok, ossl.raw).toBe(true);
    const signed = withCms(p, stored);
    const r = judge(signed);
    expect(r).toMatchObject({ digestValid: false, valid: false, level: null });
    expect(r.problems).toEqual([expect.stringMatching(/^signed attributes not DER-encoded: SET elements not in ascending order at offset \d+ \(X\.690 §11\.6\)$/)]);
    // NSS too verifies over the stored order.
    expect((await pdfsigOf('attrs-unsorted.pdf', signed)).validation).toBe('Signature is Valid.');

    // Signed over the DER order but stored otherwise: OpenSSL fails too, and so do we, on both counts.
    const sortedSig = reorderSignedAttributes(der, pki.signerKeyPem, 'der');
    expect((await opensslVerify(sortedSig, p.signedBytes, pki.caCertPath)).ok).toBe(false);
    const r2 = judge(withCms(p, sortedSig));
    expect(r2.digestValid).toBe(false);
    expect(r2.problems).toEqual([expect.stringMatching(/^signed attributes not DER-encoded: /), "the signature value does not verify with the signer certificate's key"]);
    expect((await pdfsigOf('attrs-unsorted-der-signed.pdf', withCms(p, sortedSig))).validation).toBe('Signature is Invalid.');
  });
});
