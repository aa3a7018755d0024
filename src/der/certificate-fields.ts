/**
 * Private reader of the X.509 fields the CMS and PKI code needs, as exact DER views
 * (RFC 5280 §4.1: Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }).
 */
import { derViolationAt } from './ber';
import { children, decodeOid, DerError, expectTag, readDerExact, TAG, type Der } from './der';
import { memoByDer } from './memo-by-der';

export interface CertificateFields {
  tbs: Der;
  serial: Der;
  issuer: Der;
  validity: Der;
  subject: Der;
  spki: Der;
  /** The `extensions` SEQUENCE inside [3], or null for a certificate without extensions. */
  extensions: Der | null;
}

export function readCertificate(der: Uint8Array): CertificateFields {
  const cert = expectTag(readDerExact(der), TAG.SEQUENCE, 'Certificate');
  const tbs = expectTag(children(cert)[0], TAG.SEQUENCE, 'TBSCertificate');
  const f = children(tbs);
  // version [0] EXPLICIT is absent for v1 certificates (RFC 5280 §4.1.2.1).
  const i = f[0]?.tag === 0xa0 ? 1 : 0;
  const ext = f.slice(i + 6).find((d) => d.tag === 0xa3);
  return {
    tbs,
    serial: expectTag(f[i], TAG.INTEGER, 'serialNumber'),
    issuer: expectTag(f[i + 2], TAG.SEQUENCE, 'issuer'),
    validity: expectTag(f[i + 3], TAG.SEQUENCE, 'validity'),
    subject: expectTag(f[i + 4], TAG.SEQUENCE, 'subject'),
    spki: expectTag(f[i + 5], TAG.SEQUENCE, 'subjectPublicKeyInfo'),
    extensions: ext ? expectTag(children(ext)[0], TAG.SEQUENCE, 'extensions') : null,
  };
}

/** SubjectPublicKeyInfo algorithm OID and, for EC keys, the named-curve OID (RFC 5480 §2.1.1). */
export function readSpkiAlgorithm(spki: Der): { algorithm: string; parameter: string | null } {
  const alg = expectTag(children(spki)[0], TAG.SEQUENCE, 'SubjectPublicKeyInfo.algorithm');
  const [id, param] = children(alg);
  const algorithm = decodeOid(expectTag(id, TAG.OID, 'algorithm OID').content);
  return { algorithm, parameter: param?.tag === TAG.OID ? decodeOid(param.content) : null };
}

/** The subjectPublicKey BIT STRING's key bytes (without the unused-bits octet). */
export function readSpkiKeyBits(spki: Der): Uint8Array {
  const bits = expectTag(children(spki)[1], TAG.BIT_STRING, 'subjectPublicKey');
  if (bits.content[0] !== 0) throw new DerError('subjectPublicKey has unused bits');
  return bits.content.subarray(1);
}

/** The extnValue OCTET STRING content of one extension, or null when the certificate lacks it. */
export function findExtension(fields: CertificateFields, extnId: string): Uint8Array | null {
  if (!fields.extensions) return null;
  for (const ext of children(fields.extensions)) {
    const parts = children(ext);
    if (decodeOid(expectTag(parts[0], TAG.OID, 'extnID').content) !== extnId) continue;
    return expectTag(parts[parts.length - 1], TAG.OCTET_STRING, 'extnValue').content;
  }
  return null;
}

/**
 * Why a certificate is not DER (RFC 5280 §4.1: "the certificate is encoded in DER"), naming the
 * field the first violation is in ("serialNumber: an INTEGER with a needless leading 0x00 octet
 * at offset 15 (X.690 §8.3.2)"), or null. A certificate read leniently can claim what its DER
 * twin does not: openssl, pdfsig and EU DSS refuse such a certificate, and so does validation here.
 */
export const certificateDerViolation = memoByDer((der: Uint8Array): string | null => {
  const v = derViolationAt(der);
  if (!v) return null;
  const reason = v.reason.replace('{at}', `at offset ${v.offset}`);
  try {
    const outer = children(readDerExact(der));
    const f = readCertificate(der);
    const named: [string, Der | null | undefined][] = [
      ['serialNumber', f.serial], ['issuer', f.issuer], ['validity', f.validity], ['subject', f.subject], ['subjectPublicKeyInfo', f.spki],
      ['extensions', f.extensions], ['tbsCertificate', f.tbs], ['signatureAlgorithm', outer[1]], ['signatureValue', outer[2]],
    ];
    const field = named.find(([, node]) => node && v.offset >= node.raw.byteOffset - der.byteOffset && v.offset < node.raw.byteOffset - der.byteOffset + node.raw.length);
    return field ? `${field[0]}: ${reason}` : reason;
  } catch {
    return reason;
  }
});
