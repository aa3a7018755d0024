import type { CmsSignatureAlgorithm } from './crypto-backend.js';
import { child, children, contentOf, DerError, leadingOid, oidOf, rawOf, readTlv, TAG, type Tlv } from './der.js';
import { equalBytes, hexOf } from './hex.js';

/**
 * A CMS SignedData (RFC 5652 §5) read for one question: who signed it, over which digest, with
 * which signature. And a certificate (RFC 5280 §4.1) read for the fields a SignerInfo names its
 * signer by.
 */

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4', // RFC 3161 §2.4.2: a timestamp token's content
  messageDigest: '1.2.840.113549.1.9.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecPublicKey: '1.2.840.10045.2.1',
  p256: '1.2.840.10045.3.1.7',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
} as const;

export interface CertificateIds {
  /** The issuer Name, DER as in the certificate. */
  issuer: Uint8Array;
  /** The serialNumber INTEGER's content octets. */
  serial: Uint8Array;
  /** The subjectKeyIdentifier extension's key identifier, if any (RFC 5280 §4.2.1.2). */
  keyId: Uint8Array | null;
  /** SubjectPublicKeyInfo, DER. */
  spki: Uint8Array;
  keyType: 'rsa' | 'p256' | 'other';
}

export function readCertificate(der: Uint8Array): CertificateIds {
  const cert = readTlv(der, 0);
  const tbs = child(der, cert, 0, TAG.SEQUENCE, 'tbsCertificate');
  const fields = children(der, tbs);
  const at = fields[0]?.tag === 0xa0 ? 1 : 0; // [0] EXPLICIT version, absent for v1
  const [serial, , issuer, , , spki] = fields.slice(at);
  if (serial?.tag !== TAG.INTEGER || issuer?.tag !== TAG.SEQUENCE || spki?.tag !== TAG.SEQUENCE) throw new DerError('not an X.509 certificate');
  let keyId: Uint8Array | null = null;
  const extensions = fields.find((f) => f.tag === 0xa3);
  if (extensions) {
    for (const ext of children(der, child(der, extensions, 0, TAG.SEQUENCE, 'extensions'))) {
      if (leadingOid(der, ext, 'extnID') !== OID.subjectKeyIdentifier) continue;
      const value = children(der, ext).at(-1)!; // extnValue OCTET STRING holding KeyIdentifier ::= OCTET STRING
      keyId = contentOf(der, readTlv(der, value.body, value.end));
    }
  }
  const algorithm = child(der, spki, 0, TAG.SEQUENCE, 'subjectPublicKeyInfo.algorithm');
  const keyOid = leadingOid(der, algorithm, 'subjectPublicKeyInfo.algorithm');
  const curve = children(der, algorithm)[1];
  const keyType = keyOid === OID.rsaEncryption ? 'rsa' : keyOid === OID.ecPublicKey && curve?.tag === TAG.OID && oidOf(contentOf(der, curve)) === OID.p256 ? 'p256' : 'other';
  return { issuer: rawOf(der, issuer), serial: contentOf(der, serial), keyId, spki: rawOf(der, spki), keyType };
}

export interface CmsSigner {
  /** A document timestamp (RFC 3161 token, ETSI.RFC3161), not a signature. */
  isTimestamp: boolean;
  signerInfoCount: number;
  sid: { issuer: Uint8Array; serial: Uint8Array } | { keyId: Uint8Array };
  digestAlgorithm: string;
  signatureAlgorithm: string;
  /** The signed attributes as signed: their DER with the SET tag (RFC 5652 §5.4). */
  signedAttributes: Uint8Array | null;
  messageDigest: Uint8Array | null;
  signature: Uint8Array;
}

/** The first SignerInfo of the DER ContentInfo at the start of `contents` (zero padding after it is ignored). */
export function readCmsSigner(contents: Uint8Array): CmsSigner {
  const info = readTlv(contents, 0);
  if (leadingOid(contents, info, 'ContentInfo.contentType') !== OID.signedData) throw new DerError('the CMS is not SignedData');
  const signedData = child(contents, child(contents, info, 1, 0xa0, 'ContentInfo.content'), 0, TAG.SEQUENCE, 'SignedData');
  const fields = children(contents, signedData);
  const encap = fields[2];
  const signerInfos = fields.at(-1);
  if (encap?.tag !== TAG.SEQUENCE || signerInfos?.tag !== TAG.SET) throw new DerError('SignedData has no encapContentInfo or signerInfos');
  const infos = children(contents, signerInfos);
  if (infos.length === 0) throw new DerError('SignedData has no SignerInfo');
  const parts = children(contents, infos[0]!);
  const [, sid, digestAlgorithm] = parts;
  const attrs = parts.find((p) => p.tag === 0xa0);
  const afterAttrs = parts.indexOf(attrs ?? parts[2]!) + 1;
  const [signatureAlgorithm, signature] = parts.slice(afterAttrs);
  if (!sid || digestAlgorithm?.tag !== TAG.SEQUENCE || signatureAlgorithm?.tag !== TAG.SEQUENCE || signature?.tag !== TAG.OCTET_STRING) throw new DerError('SignerInfo is not RFC 5652 §5.3 shaped');
  return {
    isTimestamp: leadingOid(contents, encap, 'eContentType') === OID.tstInfo,
    signerInfoCount: infos.length,
    sid: sidOf(contents, sid),
    digestAlgorithm: leadingOid(contents, digestAlgorithm, 'digestAlgorithm'),
    signatureAlgorithm: leadingOid(contents, signatureAlgorithm, 'signatureAlgorithm'),
    signedAttributes: attrs ? Uint8Array.of(TAG.SET, ...rawOf(contents, attrs).subarray(1)) : null,
    messageDigest: attrs ? messageDigestOf(contents, attrs) : null,
    signature: contentOf(contents, signature),
  };
}

/** SignerIdentifier: issuerAndSerialNumber, or [0] subjectKeyIdentifier (RFC 5652 §5.3). */
function sidOf(buf: Uint8Array, sid: Tlv): CmsSigner['sid'] {
  if (sid.tag === 0x80) return { keyId: contentOf(buf, sid) };
  if (sid.tag !== TAG.SEQUENCE) throw new DerError('SignerInfo.sid is neither issuerAndSerialNumber nor subjectKeyIdentifier');
  const issuer = child(buf, sid, 0, TAG.SEQUENCE, 'sid.issuer');
  return { issuer: rawOf(buf, issuer), serial: contentOf(buf, child(buf, sid, 1, TAG.INTEGER, 'sid.serialNumber')) };
}

/** The one value of the message-digest attribute (RFC 5652 §11.2), or null. */
function messageDigestOf(buf: Uint8Array, attrs: Tlv): Uint8Array | null {
  for (const attr of children(buf, attrs)) {
    if (leadingOid(buf, attr, 'attrType') !== OID.messageDigest) continue;
    const values = children(buf, child(buf, attr, 1, TAG.SET, 'attrValues'));
    return values.length === 1 && values[0]!.tag === TAG.OCTET_STRING ? contentOf(buf, values[0]!) : null;
  }
  return null;
}

/** Whether the SignerInfo names this certificate as its signer. */
export function namesCertificate(signer: CmsSigner, cert: CertificateIds): boolean {
  const sid = signer.sid;
  if ('keyId' in sid) return cert.keyId !== null && equalBytes(cert.keyId, sid.keyId);
  return equalBytes(cert.issuer, sid.issuer) && equalBytes(cert.serial, sid.serial);
}

/** How the SignerInfo names its signer, in words. */
export function signerInWords(signer: CmsSigner): string {
  const sid = signer.sid;
  return 'keyId' in sid ? `subjectKeyIdentifier ${hexOf(sid.keyId)}` : `serial number ${hexOf(sid.serial)} of its issuer`;
}

export const isSha256 = (oid: string): boolean => oid === OID.sha256;

/**
 * How the signature value is checked, from the SignerInfo's algorithm and the certificate's key:
 * what the service makes (RSA PKCS#1 v1.5 or ECDSA P-256, over SHA-256); null for anything else.
 */
export function signatureAlgorithmOf(signer: CmsSigner, cert: CertificateIds): CmsSignatureAlgorithm | null {
  if (cert.keyType === 'rsa' && (signer.signatureAlgorithm === OID.rsaEncryption || signer.signatureAlgorithm === OID.sha256WithRsa)) return 'rsa-pkcs1-sha256';
  if (cert.keyType === 'p256' && signer.signatureAlgorithm === OID.ecdsaWithSha256) return 'ecdsa-p256-sha256';
  return null;
}
