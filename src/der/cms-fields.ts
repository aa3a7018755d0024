/**
 * Private reader of a CMS SignedData (RFC 5652 §5), shared by the CMS verifier and the RFC 3161
 * token check. Throws DerError on a structure it cannot read; callers map that to their layer's error.
 * DER by default (what we write and check before embedding); `{ ber: true }` reads the BER that
 * RFC 5652 §1.2 allows for a CMS from elsewhere (ber.ts), its nodes read the same way here.
 */
import { berItems, readBerExact } from './ber';
import { findExtension, readCertificate } from './certificate-fields';
import { bytesEqual, children as derChildren, decodeOid, DerError, expectTag, readDerExact, TAG, type Der } from './der';
import { OID } from './oids';

export interface ParsedSignerInfo {
  /**
   * RFC 5652 §5.3 SignerIdentifier: issuerAndSerialNumber (version 1), or subjectKeyIdentifier
   * [0] (version 3, as pyHanko and some national tools write it).
   */
  sid: { issuer: Uint8Array; serial: Uint8Array } | { subjectKeyIdentifier: Uint8Array };
  digestAlgorithm: string;
  /** The digest AlgorithmIdentifier, parameters included (id-shake256-len carries its output length, RFC 8419 §2.3). */
  digestAlgorithmId: Der;
  /** signedAttrs as encoded, tag [0] (0xA0); null when absent. */
  signedAttrs: Der | null;
  signatureAlgorithm: string;
  /** The signature AlgorithmIdentifier, parameters included (RSASSA-PSS: RFC 4055 §3.1). */
  signatureAlgorithmId: Der;
  signature: Uint8Array;
  unsignedAttrs: Der | null;
}

export interface ParsedSignedData {
  digestAlgorithms: string[];
  contentType: string;
  /** eContent octets, or null for a detached signature. */
  content: Uint8Array | null;
  certificates: Uint8Array[];
  /** RevocationInfoChoices (RFC 5652 §10.2.1): CRLs, and OCSP responses as id-ri-ocsp-response (RFC 5940 §4.1). */
  revocation: RevocationInfo;
  signerInfos: ParsedSignerInfo[];
}

export interface RevocationInfo {
  crls: Uint8Array[];
  ocsps: Uint8Array[];
}

/** A DER node's children, or a BER node's elements (constructed strings already joined). */
const children = (node: Der): Der[] => berItems(node, derChildren);

function algorithmOid(node: Der | undefined, what: string): string {
  const alg = expectTag(node, TAG.SEQUENCE, what);
  return decodeOid(expectTag(children(alg)[0], TAG.OID, `${what} OID`).content);
}

function parseSignerInfo(node: Der): ParsedSignerInfo {
  const f = children(expectTag(node, TAG.SEQUENCE, 'SignerInfo'));
  expectTag(f[0], TAG.INTEGER, 'SignerInfo.version');
  // sid (RFC 5652 §5.3): issuerAndSerialNumber, or [0] IMPLICIT SubjectKeyIdentifier (an OCTET STRING).
  let sid: ParsedSignerInfo['sid'];
  if (f[1]?.tag === 0x80) sid = { subjectKeyIdentifier: f[1].content };
  else {
    const parts = children(expectTag(f[1], TAG.SEQUENCE, 'SignerInfo.sid (issuerAndSerialNumber)'));
    sid = { issuer: expectTag(parts[0], TAG.SEQUENCE, 'sid.issuer').raw, serial: expectTag(parts[1], TAG.INTEGER, 'sid.serialNumber').content };
  }
  let i = 3;
  const signedAttrs = f[i]?.tag === 0xa0 ? f[i++]! : null;
  const signatureAlgorithmId = f[i]!;
  const signatureAlgorithm = algorithmOid(f[i++], 'SignerInfo.signatureAlgorithm');
  const signature = expectTag(f[i++], TAG.OCTET_STRING, 'SignerInfo.signature').content;
  const unsignedAttrs = f[i]?.tag === 0xa1 ? f[i]! : null;
  return {
    sid,
    digestAlgorithm: algorithmOid(f[2], 'SignerInfo.digestAlgorithm'),
    digestAlgorithmId: f[2]!,
    signedAttrs,
    signatureAlgorithm,
    signatureAlgorithmId,
    signature,
    unsignedAttrs,
  };
}

export function parseSignedData(der: Uint8Array, options: { ber?: boolean } = {}): ParsedSignedData {
  const ci = children(expectTag(options.ber ? readBerExact(der) : readDerExact(der), TAG.SEQUENCE, 'ContentInfo'));
  const type = decodeOid(expectTag(ci[0], TAG.OID, 'ContentInfo.contentType').content);
  if (type !== OID.signedData) throw new DerError(`ContentInfo holds ${type}, not signedData`);
  const sd = children(expectTag(children(expectTag(ci[1], 0xa0, 'ContentInfo.content'))[0], TAG.SEQUENCE, 'SignedData'));
  expectTag(sd[0], TAG.INTEGER, 'SignedData.version');
  const digestAlgorithms = children(expectTag(sd[1], TAG.SET, 'digestAlgorithms')).map((a) => algorithmOid(a, 'digestAlgorithm'));
  const encap = children(expectTag(sd[2], TAG.SEQUENCE, 'encapContentInfo'));
  const contentType = decodeOid(expectTag(encap[0], TAG.OID, 'eContentType').content);
  let content: Uint8Array | null = null;
  if (encap[1]) {
    // RFC 5652 §5.2: [0] EXPLICIT OCTET STRING; in BER possibly constructed (X.690 §8.7.3), read joined.
    const inner = children(expectTag(encap[1], 0xa0, 'eContent'))[0];
    content = expectTag(inner, TAG.OCTET_STRING, 'eContent OCTET STRING').content;
  }
  let i = 3;
  const certificates = sd[i]?.tag === 0xa0 ? children(sd[i++]!).filter((c) => c.tag === TAG.SEQUENCE).map((c) => c.raw) : [];
  const revocation: RevocationInfo = { crls: [], ocsps: [] };
  if (sd[i]?.tag === 0xa1) {
    for (const choice of children(sd[i++]!)) {
      // RevocationInfoChoice ::= CHOICE { crl CertificateList, other [1] IMPLICIT OtherRevocationInfoFormat }.
      if (choice.tag === TAG.SEQUENCE) revocation.crls.push(choice.raw);
      else if (choice.tag === 0xa1) {
        const [format, info] = children(choice);
        if (format?.tag === TAG.OID && decodeOid(format.content) === OID.riOcspResponse && info) revocation.ocsps.push(info.raw);
      }
    }
  }
  const signerInfos = children(expectTag(sd[i], TAG.SET, 'signerInfos')).map(parseSignerInfo);
  return { digestAlgorithms, contentType, content, certificates, revocation, signerInfos };
}

/** Attributes (SET OF Attribute, RFC 5652 §5.3) as OID -> the raw encodings of the values. */
export function readAttributes(attrs: Der): Map<string, Der[]> {
  const out = new Map<string, Der[]>();
  for (const attr of children(attrs)) {
    const [type, values] = children(expectTag(attr, TAG.SEQUENCE, 'Attribute'));
    const id = decodeOid(expectTag(type, TAG.OID, 'Attribute.attrType').content);
    if (out.has(id)) throw new DerError(`attribute ${id} appears twice`);
    out.set(id, children(expectTag(values, TAG.SET, `Attribute ${id} values`)));
  }
  return out;
}

/**
 * Adobe's revocation archival signed attribute (ISO 32000-1 §12.8.3.3.2, adbe-revocationInfoArchival):
 * RevocationInfoArchival ::= SEQUENCE { crl [0] EXPLICIT SEQUENCE OF CRLs OPTIONAL,
 * ocsp [1] EXPLICIT SEQUENCE OF OCSPResponse OPTIONAL, otherRevInfo [2] ... OPTIONAL }.
 */
export function readRevocationArchival(value: Der): RevocationInfo {
  const out: RevocationInfo = { crls: [], ocsps: [] };
  for (const part of children(expectTag(value, TAG.SEQUENCE, 'RevocationInfoArchival'))) {
    const list = part.tag === 0xa0 ? out.crls : part.tag === 0xa1 ? out.ocsps : null;
    if (list) for (const item of children(expectTag(children(part)[0], TAG.SEQUENCE, 'RevocationInfoArchival list'))) list.push(item.raw);
  }
  return out;
}

/**
 * The certificate among `certificates` that SignerInfo `si` names: by issuer and serial number,
 * or by its subjectKeyIdentifier extension (RFC 5652 §5.3, RFC 5280 §4.2.1.2). Unreadable
 * certificates cannot be the signer's.
 */
export function findSignerCertificate(certificates: Uint8Array[], si: ParsedSignerInfo): Uint8Array | null {
  const sid = si.sid;
  return (
    certificates.find((c) => {
      try {
        const f = readCertificate(c);
        if ('issuer' in sid) return bytesEqual(f.issuer.raw, sid.issuer) && bytesEqual(f.serial.content, sid.serial);
        const ski = findExtension(f, OID.subjectKeyIdentifier);
        return ski !== null && bytesEqual(expectTag(readDerExact(ski), TAG.OCTET_STRING, 'subjectKeyIdentifier').content, sid.subjectKeyIdentifier);
      } catch {
        return false;
      }
    }) ?? null
  );
}
