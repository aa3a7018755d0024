/**
 * Checks an X.509-style signature (certificates, CRLs, OCSP responses: RFC 5280 §4.1.1.2,
 * RFC 6960 §4.2.1) made with RSA PKCS#1 v1.5 or ECDSA over SHA-1/SHA-2 by the key of a certificate.
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { children, decodeOid, expectTag, TAG, type Der } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { SIGNATURE_DIGESTS } from '../der/oids';
import { memoByDer } from '../der/memo-by-der';

/** The OID of an AlgorithmIdentifier SEQUENCE. */
export function algorithmOf(node: Der | undefined, what: string): string {
  return decodeOid(expectTag(children(expectTag(node, TAG.SEQUENCE, what))[0], TAG.OID, `${what} OID`).content);
}

/** The certificate's public key (remembered by the certificate's bytes: memo-by-der.ts). */
export const publicKeyOf: (certificate: Uint8Array) => KeyObject = memoByDer((certificate) =>
  createPublicKey({ key: Buffer.from(readCertificate(certificate).spki.raw), format: 'der', type: 'spki' }),
);

/** BIT STRING value without the unused-bits octet (signatures have none). */
export function bitStringBytes(node: Der | undefined, what: string): Uint8Array {
  return expectTag(node, TAG.BIT_STRING, what).content.subarray(1);
}

/** True when `signature` over `data` verifies with `signer`'s key under `algorithm`; false for an unknown algorithm. */
export function verifyWithCertificate(algorithm: string, data: Uint8Array, signature: Uint8Array, signer: Uint8Array): boolean {
  const digest = SIGNATURE_DIGESTS[algorithm];
  if (!digest) return false;
  try {
    return cryptoVerify(digest, data, publicKeyOf(signer), signature);
  } catch {
    return false;
  }
}

/** Certificate, CRL and BasicOCSPResponse share the shape SEQUENCE { tbs, signatureAlgorithm, signature BIT STRING }. */
export function verifySignedSequence(parts: Der[], signer: Uint8Array): boolean {
  return verifyWithCertificate(algorithmOf(parts[1], 'signatureAlgorithm'), parts[0]!.raw, bitStringBytes(parts[2], 'signature'), signer);
}
