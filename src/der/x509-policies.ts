/**
 * Readers of the certificate policy extensions (RFC 5280 §4.2.1.4, §4.2.1.5, §4.2.1.11,
 * §4.2.1.14) from their extnValue: the policies asserted, the mappings between domains, and the
 * skip counts that require an explicit policy or inhibit mapping and anyPolicy. The policy tree
 * they feed is pki/policy-tree.ts.
 */
import { children, decodeOid, DerError, expectTag, readDerExact, TAG, type Der } from './der';

export const ANY_POLICY = '2.5.29.32.0'; // §4.2.1.4 anyPolicy

export interface PolicyInformation {
  policy: string;
  /** policyQualifiers as encoded, or null (they are carried, not interpreted: §4.2.1.4). */
  qualifiers: Uint8Array | null;
}

/** certificatePolicies ::= SEQUENCE SIZE (1..MAX) OF PolicyInformation; an OID at most once (§4.2.1.4). */
export function readCertificatePolicies(value: Uint8Array): PolicyInformation[] {
  const out: PolicyInformation[] = [];
  for (const info of children(expectTag(readDerExact(value), TAG.SEQUENCE, 'certificatePolicies'))) {
    const [id, qualifiers] = children(expectTag(info, TAG.SEQUENCE, 'PolicyInformation'));
    const policy = decodeOid(expectTag(id, TAG.OID, 'policyIdentifier').content);
    if (out.some((p) => p.policy === policy)) throw new DerError(`certificate policy ${policy} appears twice`);
    out.push({ policy, qualifiers: qualifiers ? expectTag(qualifiers, TAG.SEQUENCE, 'policyQualifiers').raw : null });
  }
  if (out.length === 0) throw new DerError('certificatePolicies is empty');
  return out;
}

/** PolicyMappings ::= SEQUENCE SIZE (1..MAX) OF SEQUENCE { issuerDomainPolicy, subjectDomainPolicy } (§4.2.1.5). */
export function readPolicyMappings(value: Uint8Array): { issuer: string; subject: string }[] {
  const out = children(expectTag(readDerExact(value), TAG.SEQUENCE, 'PolicyMappings')).map((m) => {
    const [issuer, subject] = children(expectTag(m, TAG.SEQUENCE, 'PolicyMapping'));
    return { issuer: decodeOid(expectTag(issuer, TAG.OID, 'issuerDomainPolicy').content), subject: decodeOid(expectTag(subject, TAG.OID, 'subjectDomainPolicy').content) };
  });
  if (out.length === 0) throw new DerError('policyMappings is empty');
  return out;
}

/** SkipCerts ::= INTEGER (0..MAX); a count past 2^31 is no limit in practice. */
function skipCerts(node: Der): number {
  const n = node.content;
  if (n.length === 0 || (n[0]! & 0x80) !== 0) throw new DerError('SkipCerts is negative');
  return n.length > 4 ? Number.MAX_SAFE_INTEGER : n.reduce((v, b) => v * 256 + b, 0);
}

export interface PolicyConstraints {
  requireExplicitPolicy: number | null;
  inhibitPolicyMapping: number | null;
}

/** PolicyConstraints ::= SEQUENCE { requireExplicitPolicy [0] SkipCerts OPTIONAL, inhibitPolicyMapping [1] SkipCerts OPTIONAL } (§4.2.1.11). */
export function readPolicyConstraints(value: Uint8Array): PolicyConstraints {
  const out: PolicyConstraints = { requireExplicitPolicy: null, inhibitPolicyMapping: null };
  const parts = children(expectTag(readDerExact(value), TAG.SEQUENCE, 'PolicyConstraints'));
  for (const part of parts) {
    if (part.tag === 0x80) out.requireExplicitPolicy = skipCerts(part);
    else if (part.tag === 0x81) out.inhibitPolicyMapping = skipCerts(part);
    else throw new DerError(`PolicyConstraints: unexpected tag 0x${part.tag.toString(16)}`);
  }
  // §4.2.1.11: "Conforming CAs MUST NOT issue certificates where policy constraints is an empty sequence."
  if (parts.length === 0) throw new DerError('policyConstraints is an empty sequence');
  return out;
}

/** InhibitAnyPolicy ::= SkipCerts (§4.2.1.14). */
export function readInhibitAnyPolicy(value: Uint8Array): number {
  return skipCerts(expectTag(readDerExact(value), TAG.INTEGER, 'InhibitAnyPolicy'));
}
