/**
 * Checks an X.509-style signature (certificates, CRLs, OCSP responses: RFC 5280 §4.1.1.2,
 * RFC 6960 §4.2.1) by the key of a certificate, in any scheme signature-scheme.ts reads.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { children, decodeOid, expectTag, TAG, type Der } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { memoByDer } from '../der/memo-by-der';
import { signatureScheme, verifyWithScheme } from './signature-scheme';

/** The OID of an AlgorithmIdentifier SEQUENCE. */
export function algorithmOf(node: Der | undefined, what: string): string {
  return decodeOid(expectTag(children(expectTag(node, TAG.SEQUENCE, what))[0], TAG.OID, `${what} OID`).content);
}

/** The certificate's public key (remembered by the certificate's bytes: memo-by-der.ts). */
export const publicKeyOf: (certificate: Uint8Array) => KeyObject = memoByDer((certificate) =>
  createPublicKey({ key: Buffer.from(readCertificate(certificate).spki.raw), format: 'der', type: 'spki' }),
);

/** The key as reports name it: "RSA 2048", "EC P-256", "Ed25519", "RSASSA-PSS 3072"; null when it does not read. */
export function describeKey(certificate: Uint8Array): string | null {
  try {
    const key = publicKeyOf(certificate);
    const d = key.asymmetricKeyDetails ?? {};
    switch (key.asymmetricKeyType) {
      case 'rsa':
        return `RSA ${d.modulusLength}`;
      case 'rsa-pss':
        return `RSASSA-PSS ${d.modulusLength}`;
      case 'ec':
        return `EC ${EC_CURVES[d.namedCurve ?? ''] ?? d.namedCurve}`;
      case 'ed25519':
        return 'Ed25519';
      case 'ed448':
        return 'Ed448';
      default:
        return key.asymmetricKeyType ?? null;
    }
  } catch {
    return null;
  }
}

/** OpenSSL's curve names as ETSI TS 119 312 and reports name them. */
const EC_CURVES: Record<string, string> = {
  prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521', secp256k1: 'secp256k1',
  brainpoolP256r1: 'brainpoolP256r1', brainpoolP384r1: 'brainpoolP384r1', brainpoolP512r1: 'brainpoolP512r1',
};

/** BIT STRING value without the unused-bits octet (signatures have none). */
export function bitStringBytes(node: Der | undefined, what: string): Uint8Array {
  return expectTag(node, TAG.BIT_STRING, what).content.subarray(1);
}

/**
 * Certificate, CRL and BasicOCSPResponse share the shape SEQUENCE { tbs, signatureAlgorithm,
 * signature BIT STRING }: true when the signature verifies with `signer`'s key; false for an
 * algorithm not supported or a key that does not read.
 */
export function verifySignedSequence(parts: Der[], signer: Uint8Array): boolean {
  try {
    return verifyWithScheme(signatureScheme(parts[1]!), [parts[0]!.raw], publicKeyOf(signer), bitStringBytes(parts[2], 'signature'));
  } catch {
    return false;
  }
}
