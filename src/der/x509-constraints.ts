/**
 * Readers of the X.509 extensions that constrain a certification path (RFC 5280 §4.2): the
 * extension list with each one's criticality, basicConstraints with pathLenConstraint, keyUsage,
 * subjectAltName and nameConstraints. Each returns DER views; the judging is in pki/.
 */
import { children, decodeOid, DerError, expectTag, readDerExact, TAG, type Der } from './der';
import type { CertificateFields } from './certificate-fields';

export interface Extension {
  id: string;
  critical: boolean;
  /** The extnValue OCTET STRING's content: the extension's own DER. */
  value: Uint8Array;
}

/** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING } (§4.1). */
export function readExtensions(fields: CertificateFields): Extension[] {
  return fields.extensions ? readExtensionList(fields.extensions) : [];
}

/** Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension: a certificate's, a CRL's or a CRL entry's (§4.1, §5.1). */
export function readExtensionList(extensions: Der): Extension[] {
  const out: Extension[] = [];
  for (const ext of children(expectTag(extensions, TAG.SEQUENCE, 'Extensions'))) {
    const parts = children(expectTag(ext, TAG.SEQUENCE, 'Extension'));
    const id = decodeOid(expectTag(parts[0], TAG.OID, 'extnID').content);
    const critical = parts.length === 3 && expectTag(parts[1], TAG.BOOLEAN, 'critical').content[0] !== 0;
    const value = expectTag(parts[parts.length - 1], TAG.OCTET_STRING, 'extnValue').content;
    // §4.2, §5.2: a certificate or CRL "MUST NOT include more than one instance of a particular extension".
    if (out.some((e) => e.id === id)) throw new DerError(`extension ${id} appears twice`);
    out.push({ id, critical, value });
  }
  return out;
}

export interface BasicConstraints {
  ca: boolean;
  /** pathLenConstraint, or null when absent (no limit). */
  pathLen: number | null;
}

/** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL } (§4.2.1.9). */
export function readBasicConstraints(value: Uint8Array): BasicConstraints {
  const parts = children(expectTag(readDerExact(value), TAG.SEQUENCE, 'BasicConstraints'));
  let i = 0;
  let ca = false;
  if (parts[i]?.tag === TAG.BOOLEAN) ca = parts[i++]!.content[0] !== 0;
  let pathLen: number | null = null;
  if (parts[i]) {
    const n = expectTag(parts[i], TAG.INTEGER, 'pathLenConstraint').content;
    if (n.length === 0 || (n[0]! & 0x80) !== 0) throw new DerError('pathLenConstraint is negative');
    // A limit past 2^31 is no limit in practice; read it as such instead of losing precision.
    pathLen = n.length > 4 ? Number.MAX_SAFE_INTEGER : n.reduce((v, b) => v * 256 + b, 0);
  }
  return { ca, pathLen };
}

/** KeyUsage bits (§4.2.1.3), numbered as the ASN.1 names them. */
export const KEY_USAGE = { digitalSignature: 0, nonRepudiation: 1, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

/** The set bits of a KeyUsage BIT STRING, by number. */
export function readKeyUsage(value: Uint8Array): Set<number> {
  const bits = expectTag(readDerExact(value), TAG.BIT_STRING, 'KeyUsage').content;
  const out = new Set<number>();
  for (let i = 0; i < (bits.length - 1) * 8; i++) if ((bits[1 + (i >> 3)]! & (0x80 >> (i & 7))) !== 0) out.add(i);
  return out;
}

/** GeneralName tags (§4.2.1.6): context-specific, constructed for otherName, x400Address, directoryName, ediPartyName. */
export const GENERAL_NAME = {
  otherName: 0xa0,
  rfc822Name: 0x81,
  dNSName: 0x82,
  x400Address: 0xa3,
  directoryName: 0xa4,
  ediPartyName: 0xa5,
  uniformResourceIdentifier: 0x86,
  iPAddress: 0x87,
  registeredID: 0x88,
} as const;

/** GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName (subjectAltName, §4.2.1.6). */
export function readGeneralNames(value: Uint8Array): Der[] {
  return children(expectTag(readDerExact(value), TAG.SEQUENCE, 'GeneralNames'));
}

/** The Name inside directoryName [4] (EXPLICIT, as Name is a CHOICE). */
export function directoryNameOf(name: Der): Der {
  return expectTag(children(name)[0], TAG.SEQUENCE, 'directoryName');
}

export interface NameConstraints {
  /** GeneralSubtree bases; §4.2.1.10: minimum MUST be zero and maximum MUST be absent. */
  permitted: Der[] | null;
  excluded: Der[] | null;
}

/**
 * NameConstraints ::= SEQUENCE { permittedSubtrees [0] GeneralSubtrees OPTIONAL, excludedSubtrees [1] ... }
 * GeneralSubtree ::= SEQUENCE { base GeneralName, minimum [0] DEFAULT 0, maximum [1] OPTIONAL } (§4.2.1.10).
 */
export function readNameConstraints(value: Uint8Array): NameConstraints {
  const out: NameConstraints = { permitted: null, excluded: null };
  for (const part of children(expectTag(readDerExact(value), TAG.SEQUENCE, 'NameConstraints'))) {
    if (part.tag !== 0xa0 && part.tag !== 0xa1) throw new DerError(`NameConstraints: unexpected tag 0x${part.tag.toString(16)}`);
    const bases = children(part).map((subtree) => {
      const [base, ...bounds] = children(expectTag(subtree, TAG.SEQUENCE, 'GeneralSubtree'));
      if (!base) throw new DerError('GeneralSubtree has no base');
      // minimum [0] IMPLICIT INTEGER: DER leaves out the default 0, but some encoders write it; anything else is forbidden.
      const zeroMinimum = (d: Der): boolean => d.tag === 0x80 && d.content.every((b) => b === 0);
      if (!bounds.every(zeroMinimum)) throw new DerError('GeneralSubtree has a minimum or maximum (RFC 5280 §4.2.1.10 forbids them)');
      return base;
    });
    if (part.tag === 0xa0) out.permitted = bases;
    else out.excluded = bases;
  }
  return out;
}
