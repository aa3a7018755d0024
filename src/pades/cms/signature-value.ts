import { verify } from 'node:crypto';
import { publicKeyOfCertificate } from './cms';

/**
 * Whether `signatureValue` is the signer's signature over the DER signed attributes (RFC 5652
 * §5.4): RSASSA-PKCS1-v1_5 or ECDSA (DER SEQUENCE{r,s}) with SHA-256, checked with the public key
 * of `signerCertificate`. Used on a signature that came from elsewhere (the remote platform)
 * before it goes into a document: a wrong-key answer must be refused, never embedded.
 */
export function signatureValueMatches(signedAttributes: Uint8Array, signatureValue: Uint8Array, signerCertificate: Uint8Array): boolean {
  try {
    return verify('sha256', signedAttributes, publicKeyOfCertificate(signerCertificate), signatureValue);
  } catch {
    return false; // not a signature of this key's form at all (e.g. an RSA value for a P-256 key)
  }
}
