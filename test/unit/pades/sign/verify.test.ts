import { describe, it, expect, beforeAll } from 'vitest';
import { finishPades } from '../../../../src/pades/sign/finish';
import { preparePades } from '../../../../src/pades/sign/prepare';
import { verifyPades, verifyPrepared } from '../../../../src/pades/sign/verify';
import { SigningError } from '../../../../src/domain/errors';
import type { PreparedPades } from '../../../../src/pades/sign/types';
import { createTestPki, signDigest, type TestPki } from '../../../helpers/test-pki';
import { makePdf } from '../_pdf-fixtures';

function failure(run: () => unknown): SigningError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SigningError);
    return e as SigningError;
  }
  throw new Error('expected a SigningError');
}

describe('verifyPades / verifyPrepared', () => {
  let pki: TestPki;
  let prepared: PreparedPades;
  let signed: Uint8Array;
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'p256' });
    prepared = await preparePades({ pdf: await makePdf({ pages: 1 }), certificateChain: pki.chain, signingTime: new Date('2026-01-02T03:04:05Z') });
    signed = finishPades(prepared, signDigest(pki.signerKeyPem, 'p256', prepared.digest));
  });

  it('accepts what preparePades produced', () => {
    expect(() => verifyPrepared(prepared)).not.toThrow();
    expect(prepared.byteRange[0]).toBe(0);
    expect(prepared.byteRange[1]).toBe(prepared.contentsOffset - 1);
    expect(prepared.byteRange[2] + prepared.byteRange[3]).toBe(prepared.pdf.length);
  });

  it('verifies the newest signature and returns the signer certificate', () => {
    const result = verifyPades(signed);
    expect(result.fieldName).toBe('Signature1');
    expect(result.byteRange).toEqual(prepared.byteRange);
    expect(Buffer.from(result.signerCertificate).equals(Buffer.from(pki.chain[0]!))).toBe(true);
    expect(result.cms[0]).toBe(0x30);
  });

  it('refuses a document changed after signing', () => {
    const tampered = signed.slice();
    tampered[100] = tampered[100]! ^ 0x01;
    expect(failure(() => verifyPades(tampered)).message).toBe(
      'CMS check failed: the document digest does not match: the signed bytes were changed',
    );
  });

  it('refuses a signature value over another digest', () => {
    const wrong = finishPades(prepared, signDigest(pki.signerKeyPem, 'p256', new Uint8Array(32)));
    expect(failure(() => verifyPades(wrong)).message).toBe(
      "CMS check failed: the signature value does not verify with the signer certificate's key",
    );
  });

  it('refuses an unfinished PDF and bytes appended after the signature', () => {
    expect(failure(() => verifyPades(prepared.pdf)).message).toBe('signature check failed: /Contents does not hold a DER SEQUENCE');
    const appended = new Uint8Array([...signed, 0x0a]);
    expect(failure(() => verifyPades(appended)).message).toBe('signature check failed: no signature covers the document up to its end');
  });

  it('refuses an inconsistent PreparedPades', () => {
    const shifted = { ...prepared, byteRange: [0, 10, 20, 30] as [number, number, number, number] };
    expect(failure(() => verifyPrepared(shifted)).message).toMatch(/^signature check failed: prepared \/ByteRange \[0 10 20 30\] should be/);
    const otherDigest = { ...prepared, digest: new Uint8Array(32) };
    expect(failure(() => verifyPrepared(otherDigest)).message).toBe('signature check failed: prepared digest is not SHA-256 of the signed attributes');
  });
});
