import { isSha256, namesCertificate, readCertificate, readCmsSigner, signatureAlgorithmOf, signerInWords, type CmsSigner } from './cms-signer.js';
import type { CryptoBackend } from './crypto-backend.js';
import { equalBytes, hexOf } from './hex.js';
import { findSignatures, type PdfSignature } from './pdf-signatures.js';

/**
 * A PAdES answer checked against the credential, so that a PDF signed by another key, or changed
 * after its signature, is never taken for the service's: in the last signature's CMS (a document
 * timestamp after it is passed over), the one SignerInfo names the credential's certificate
 * (issuerAndSerialNumber or subjectKeyIdentifier, RFC 5652 §5.3), its message-digest attribute
 * is SHA-256 of the bytes the /ByteRange covers (RFC 5652 §11.2, ETSI EN 319 142-1 §5.1), its
 * signature over the signed attributes verifies with the certificate's key (RFC 5652 §5.4), and
 * the input the client sent is an exact prefix of the result, covered by that signature (an
 * incremental update, ISO 32000-1 §7.5.6). Updates after the signature (B-LT's /DSS, B-LTA's
 * document timestamp) are not judged here: `verifyPdf` and `localsign verify` report them.
 */

export interface PadesExpectation {
  /** The credential's certificate (certificate_chain[0], DER); for a request the client did not make, each of the key's pades credentials'. */
  certificates: Uint8Array[];
  /** What the client sent: its length and SHA-256; null when it did not send the bytes themselves. */
  input: { length: number; sha256: Uint8Array } | null;
}

/** What does not match, in words, or null when the PDF carries the credential's signature over its input. */
export async function padesAnswerProblem(pdf: Uint8Array, expected: PadesExpectation, crypto: CryptoBackend): Promise<string | null> {
  const input = expected.input;
  if (input) {
    const prefix = input.length <= pdf.length ? await crypto.sha256([pdf.subarray(0, input.length)]) : null;
    if (!prefix || !equalBytes(prefix, input.sha256)) return `the ${input.length} bytes sent are not an exact prefix of the ${pdf.length}-byte signed PDF`;
  }
  const last = lastSignature(pdf);
  if (typeof last === 'string') return last;
  const { signature, signer } = last;
  const [, covered, gapEnd, tail] = signature.byteRange;
  if (input && covered < input.length) return `the last signature covers the first ${covered} bytes, not the whole ${input.length}-byte input`;
  if (signer.signerInfoCount !== 1) return `the last signature's CMS has ${signer.signerInfoCount} signers, not one`;
  const cert = expected.certificates.map(readCertificate).find((c) => namesCertificate(signer, c));
  if (!cert) return `the last signature's signer (${signerInWords(signer)}) is not the credential's certificate`;
  if (!isSha256(signer.digestAlgorithm)) return `the last signature's digest algorithm ${signer.digestAlgorithm} is not SHA-256`;
  if (!signer.signedAttributes || !signer.messageDigest) return "the last signature's CMS has no signed attributes with a message digest";
  const digest = await crypto.sha256([pdf.subarray(0, covered), pdf.subarray(gapEnd, gapEnd + tail)]);
  if (!equalBytes(digest, signer.messageDigest)) return `the last signature's message digest ${hexOf(signer.messageDigest)} is not SHA-256 of the bytes its /ByteRange covers (${hexOf(digest)})`;
  const algorithm = signatureAlgorithmOf(signer, cert);
  if (!algorithm) return `the last signature's algorithm ${signer.signatureAlgorithm} with a ${cert.keyType} key is not one the service makes (RSA PKCS#1 v1.5 or ECDSA P-256, with SHA-256)`;
  const valid = await crypto.verify(algorithm, cert.spki, signer.signedAttributes, signer.signature);
  return valid ? null : "the last signature's value does not verify with the credential's certificate";
}

/** The signature whose revision ends last, document timestamps passed over; or why there is none. */
function lastSignature(pdf: Uint8Array): { signature: PdfSignature; signer: CmsSigner } | string {
  const end = (s: PdfSignature): number => s.byteRange[2] + s.byteRange[3];
  let best: { signature: PdfSignature; signer: CmsSigner | string } | null = null;
  for (const signature of findSignatures(pdf)) {
    let signer: CmsSigner | string;
    try {
      signer = readCmsSigner(signature.contents);
    } catch (e) {
      signer = (e as Error).message;
    }
    if (typeof signer !== 'string' && signer.isTimestamp) continue;
    if (!best || end(signature) > end(best.signature) || (end(signature) === end(best.signature) && signature.at > best.signature.at)) best = { signature, signer };
  }
  if (!best) return 'the signed PDF carries no signature (no /ByteRange with a CMS in /Contents)';
  const { signature, signer } = best;
  return typeof signer === 'string' ? `the last signature's CMS cannot be read: ${signer}` : { signature, signer };
}
