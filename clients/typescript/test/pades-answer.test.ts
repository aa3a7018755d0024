import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opensslSign, placeholder, smallPdf, withCms } from '../../../test/helpers/external-cms';
import { createTestPki, type TestPki } from '../../../test/helpers/test-pki';
import { nodeCryptoBackend, webCryptoBackend } from '../src/crypto-backend';
import { padesAnswerProblem, type PadesExpectation } from '../src/pades-answer';

/**
 * The client's PAdES answer check on signatures it did not make: the PDF prepared by the engine,
 * the CMS made by `openssl cms -sign` (issuerAndSerialNumber by default, subjectKeyIdentifier with
 * -keyid), with RSA and P-256 keys from openssl. The check must take each, and refuse each way an
 * answer can be another's or altered.
 */
let rsa: TestPki;
let p256: TestPki;
let stranger: TestPki;
let input: Uint8Array;
const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
const sent = (pdf: Uint8Array): PadesExpectation['input'] => ({ length: pdf.length, sha256: sha256(pdf) });

/** `input` signed in an incremental update by `pki` through openssl, with `flags`. */
async function signedBy(pki: TestPki, flags: string[] = [], pdf = input): Promise<Uint8Array> {
  const p = await placeholder(pdf, pki);
  return withCms(p, await opensslSign(pki, p.signedBytes, flags));
}

beforeAll(async () => {
  [rsa, p256, stranger] = await Promise.all([createTestPki({ algorithm: 'rsa' }), createTestPki({ algorithm: 'p256' }), createTestPki({ algorithm: 'p256', signerCn: 'Stranger' })]);
  input = await smallPdf();
});
afterAll(() => {
  for (const pki of [rsa, p256, stranger]) if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

describe.each([
  ['node:crypto', () => nodeCryptoBackend()!],
  ['WebCrypto', () => webCryptoBackend()],
])('the PAdES answer check with %s', (_name, backend) => {
  const crypto = backend();

  it('takes RSA and P-256 signatures by the credential, named by issuer and serial or by key identifier', async () => {
    for (const [pki, flags] of [[rsa, []], [rsa, ['-keyid']], [p256, []], [p256, ['-keyid']]] as const) {
      const pdf = await signedBy(pki, [...flags]);
      expect(await padesAnswerProblem(pdf, { certificates: [pki.chain[0]!], input: sent(input) }, crypto), flags.join(' ')).toBeNull();
    }
  });

  it('refuses a PDF signed by another key, however its signer is named', async () => {
    for (const flags of [[], ['-keyid']]) {
      const pdf = await signedBy(stranger, flags);
      expect(await padesAnswerProblem(pdf, { certificates: [p256.chain[0]!], input: sent(input) }, crypto)).toMatch(/^the last signature's signer \((serial number|subjectKeyIdentifier) [0-9a-f]+( of its issuer)?\) is not the credential's certificate$/);
      // Among several candidates (a request from elsewhere), it is none of them either.
      expect(await padesAnswerProblem(pdf, { certificates: [rsa.chain[0]!, p256.chain[0]!], input: null }, crypto)).toMatch(/is not the credential's certificate$/);
    }
  });

  it('refuses bytes changed under the signature, a signature value changed, an input that is not the prefix', async () => {
    const pdf = await signedBy(p256);
    const changed = pdf.slice();
    changed[input.length + 20]! ^= 0x01; // in the signed update, after the input
    expect(await padesAnswerProblem(changed, { certificates: [p256.chain[0]!], input: sent(input) }, crypto)).toMatch(/^the last signature's message digest [0-9a-f]{64} is not SHA-256 of the bytes its \/ByteRange covers \([0-9a-f]{64}\)$/);

    const otherInput = input.slice();
    otherInput[100]! ^= 0x01;
    expect(await padesAnswerProblem(pdf, { certificates: [p256.chain[0]!], input: sent(otherInput) }, crypto)).toBe(`the ${input.length} bytes sent are not an exact prefix of the ${pdf.length}-byte signed PDF`);

    // The signature value sits at the end of the CMS: flip a byte of the last non-zero hex pair.
    const text = Buffer.from(pdf).toString('latin1');
    const contents = /\/Contents <([0-9a-fA-F]+)>/.exec(text.slice(input.length))!;
    const hexStart = input.length + contents.index! + '/Contents <'.length;
    const lastByte = hexStart + contents[1]!.replace(/(00)+$/, '').length - 2;
    const forged = pdf.slice();
    forged[lastByte] = forged[lastByte] === 0x30 ? 0x31 : 0x30;
    expect(await padesAnswerProblem(forged, { certificates: [p256.chain[0]!], input: sent(input) }, crypto)).toBe("the last signature's value does not verify with the credential's certificate");
  });

  it('refuses a PDF with no signature; an earlier signature is not the last one', async () => {
    expect(await padesAnswerProblem(input, { certificates: [p256.chain[0]!], input: null }, crypto)).toBe('the signed PDF carries no signature (no /ByteRange with a CMS in /Contents)');
    // The credential signed first, then a stranger: the last signature is the stranger's.
    const twice = await signedBy(stranger, [], await signedBy(p256));
    expect(await padesAnswerProblem(twice, { certificates: [p256.chain[0]!], input: sent(input) }, crypto)).toMatch(/is not the credential's certificate$/);
    // A document timestamp after the signature (RFC 3161 content, as B-LTA adds) is passed over.
    const p = await placeholder(await signedBy(p256), stranger);
    const token = await opensslSign(stranger, new TextEncoder().encode('stands for a TSTInfo'), ['-nodetach', '-econtent_type', '1.2.840.113549.1.9.16.1.4']);
    const stamped = withCms(p, token);
    expect(await padesAnswerProblem(stamped, { certificates: [p256.chain[0]!], input: sent(input) }, crypto)).toBeNull();
  });

  it('refuses a signature that covers less than the input', async () => {
    // A genuine signature of the credential, whose update starts before the end of what was sent.
    const first = await signedBy(p256);
    const longerInput = first.subarray(0, first.length - 5);
    expect(await padesAnswerProblem(first, { certificates: [p256.chain[0]!], input: sent(longerInput) }, crypto)).toMatch(/^the last signature covers the first \d+ bytes, not the whole \d+-byte input$/);
  });
});
