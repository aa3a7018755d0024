/**
 * Checks what we produced before the request becomes DONE (CONTRACT "Result semantics": the
 * service verifies the signature it produced): the newest signature's /ByteRange has the shape of
 * ISO 32000-1 §12.8.1 (starts at 0, skips exactly the /Contents hex string, runs to EOF), the CMS
 * message-digest equals SHA-256 over the ByteRange and the CMS signature verifies (cms-check.ts,
 * as our own output).
 */
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { SigningError } from '../../domain/errors';
import { readDer, TAG, type Der } from '../../der/der';
import { PdfReader } from '../pdf';
import { digestByteRange, type ByteRange } from '../pdf';
import { buildSignedAttributes } from '../cms';
import { verifyCmsSignature } from '../cms';
import { signatureFields } from '../pdf';
import type { PreparedPades } from './types';

export interface VerifiedSignature {
  fieldName: string;
  byteRange: ByteRange;
  signerCertificate: Uint8Array;
  /** The DER CMS without the /Contents zero padding. */
  cms: Uint8Array;
}

function fail(message: string, cause?: unknown): never {
  throw new SigningError(`signature check failed: ${message}`, cause === undefined ? undefined : { cause });
}

/** The DER CMS at the start of /Contents, without the zero padding after it (its own length, X.690 §8.1.3). */
function cmsOf(padded: Uint8Array, fieldName: string): Uint8Array {
  let cms: Der;
  try {
    cms = readDer(padded);
  } catch (e) {
    return fail(`/Contents of ${fieldName} does not hold a DER element: ${(e as Error).message}`, e);
  }
  if (cms.tag !== TAG.SEQUENCE) fail('/Contents does not hold a DER SEQUENCE');
  return cms.raw;
}

function readByteRange(sig: PDFDict): ByteRange {
  const br = sig.get(PDFName.of('ByteRange'));
  const nums = br instanceof PDFArray ? br.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : NaN)) : [];
  if (nums.length !== 4 || nums.some((n) => !Number.isSafeInteger(n) || n < 0)) fail('/ByteRange is not four non-negative integers');
  return nums as ByteRange;
}

/** Verifies the signature whose /ByteRange reaches the end of `pdf` (the one we just added). */
export function verifyPades(pdf: Uint8Array): VerifiedSignature {
  const reader = new PdfReader(pdf);
  const { dict: catalog } = reader.catalog();
  for (const field of signatureFields(reader, catalog)) {
    let sig;
    try {
      sig = reader.get(field, 'V');
    } catch {
      continue; // an earlier signature's dictionary we never touched; ours is readable by construction
    }
    if (!(sig instanceof PDFDict)) continue;
    const br = readByteRange(sig);
    if (br[2] + br[3] !== pdf.length) continue;
    const title = reader.get(field, 'T');
    const fieldName = title instanceof PDFString || title instanceof PDFHexString ? title.decodeText() : '';
    if (br[0] !== 0) fail(`/ByteRange of ${fieldName} does not start at byte 0`);
    if (pdf[br[1]] !== 0x3c || pdf[br[2] - 1] !== 0x3e || br[2] <= br[1]) {
      fail(`/ByteRange of ${fieldName} does not skip exactly the /Contents hex string`);
    }
    const contents = sig.get(PDFName.of('Contents'));
    if (!(contents instanceof PDFHexString)) fail(`/Contents of ${fieldName} is not a hex string`);
    const gap = Buffer.from(pdf.subarray(br[1] + 1, br[2] - 1)).toString('latin1');
    if (gap.toLowerCase() !== contents.asString().toLowerCase()) {
      fail(`the bytes /ByteRange skips are not the /Contents of ${fieldName}`);
    }
    const padded = contents.asBytes();
    const cms = cmsOf(padded, fieldName);
    if (padded.subarray(cms.length).some((b) => b !== 0)) fail(`/Contents of ${fieldName} has data after the CMS`);
    const { signerCertificate } = verifyCmsSignature(cms, digestByteRange(pdf, br));
    return { fieldName, byteRange: br, signerCertificate, cms: new Uint8Array(cms) };
  }
  return fail('no signature covers the document up to its end');
}

/** Checks a PreparedPades is self-consistent before its digest goes out to be signed. */
export function verifyPrepared(prepared: PreparedPades): void {
  const { pdf, byteRange: br, contentsOffset, contentsHexLength } = prepared;
  const expected: ByteRange = [0, contentsOffset - 1, contentsOffset + contentsHexLength + 1, pdf.length - contentsOffset - contentsHexLength - 1];
  if (br.some((v, i) => v !== expected[i])) fail(`prepared /ByteRange [${br.join(' ')}] should be [${expected.join(' ')}]`);
  if (pdf[br[1]] !== 0x3c || pdf[br[2] - 1] !== 0x3e) fail('prepared /ByteRange does not skip the /Contents hex string');
  const digest = createHash('sha256').update(prepared.signedAttributes).digest();
  if (!digest.equals(Buffer.from(prepared.digest))) fail('prepared digest is not SHA-256 of the signed attributes');
  const signer = prepared.certificateChain[0];
  const attrs = signer && buildSignedAttributes({ documentDigest: digestByteRange(pdf, br), signerCertificate: signer });
  if (!attrs || !Buffer.from(attrs).equals(Buffer.from(prepared.signedAttributes))) {
    fail('prepared signed attributes do not carry SHA-256 over the /ByteRange');
  }
  const written = Buffer.from(pdf.subarray(0, Math.min(pdf.length, br[1] + 200))).toString('latin1');
  if (!written.includes(`/ByteRange [${br.join(' ')}`)) fail('the /ByteRange written in the PDF differs from the prepared one');
}
