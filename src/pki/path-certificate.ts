/**
 * A certificate read once for path building and validation (RFC 5280 §6.1): its names, validity,
 * the extensions §6.1.3-§6.1.5 act on, and the critical extensions nothing here understands.
 */
import { children, DerError, readDerExact, type Der } from '../der/der';
import { certificateDerViolation, readCertificate, type CertificateFields } from '../der/certificate-fields';
import { OID } from '../der/oids';
import { decodeTime } from '../der/time';
import {
  readBasicConstraints,
  readExtensions,
  readGeneralNames,
  readKeyUsage,
  readNameConstraints,
  type BasicConstraints,
  type NameConstraints,
} from '../der/x509-constraints';
import { readDistributionPoints, type DistributionPoint } from '../der/crl-fields';
import {
  readCertificatePolicies,
  readInhibitAnyPolicy,
  readPolicyConstraints,
  readPolicyMappings,
  type PolicyConstraints,
  type PolicyInformation,
} from '../der/x509-policies';
import { formatName } from './distinguished-name';
import { nameKey } from './name-match';
import { algorithmOf } from './verify-signature';

const EXT = {
  subjectAltName: '2.5.29.17', // §4.2.1.6
  issuerAltName: '2.5.29.18', // §4.2.1.7
  subjectDirectoryAttributes: '2.5.29.9', // §4.2.1.8
  nameConstraints: '2.5.29.30', // §4.2.1.10
  certificatePolicies: '2.5.29.32', // §4.2.1.4
  policyMappings: '2.5.29.33', // §4.2.1.5
  policyConstraints: '2.5.29.36', // §4.2.1.11
  inhibitAnyPolicy: '2.5.29.54', // §4.2.1.14
  freshestCRL: '2.5.29.46', // §4.2.1.15
  subjectInfoAccess: '1.3.6.1.5.5.7.1.11', // §4.2.2.2
} as const;

/**
 * Extensions this validator recognises (§6.1.4 (o) and §6.1.5 (f) refuse any other that is
 * critical). The policy extensions feed the policy tree (policy-tree.ts) and the distribution
 * points the revocation check (revocation.ts); the key identifiers and access locations only help
 * find issuers and status, so they constrain nothing.
 */
const RECOGNISED = new Set<string>([
  OID.basicConstraints,
  OID.keyUsage,
  OID.extKeyUsage,
  OID.subjectKeyIdentifier,
  OID.authorityKeyIdentifier,
  OID.cRLDistributionPoints,
  OID.authorityInfoAccess,
  OID.ocspNoCheck,
  ...Object.values(EXT),
]);

export interface PathCertificate {
  der: Uint8Array;
  fields: CertificateFields;
  /** RFC 4514 text of the subject, for failures. */
  name: string;
  notBefore: Date;
  notAfter: Date;
  /** nameKey of subject and issuer: equal exactly when the names match per §7.1. */
  subjectKey: string;
  issuerKey: string;
  /** §6.1: subject and issuer match per §7.1. */
  selfIssued: boolean;
  basicConstraints: BasicConstraints | null;
  keyUsage: Set<number> | null;
  nameConstraints: NameConstraints | null;
  /** subjectAltName entries, or null when the extension is absent. */
  altNames: Der[] | null;
  unknownCritical: string[];
  /** The OID of the issuer's signature on this certificate. */
  signatureAlgorithm: string;
  /** Its AlgorithmIdentifier, parameters included (RSASSA-PSS: RFC 4055 §3.1). */
  signatureAlgorithmId: Der;
  /** certificatePolicies, or null when absent (§4.2.1.4). */
  policies: PolicyInformation[] | null;
  policyMappings: { issuer: string; subject: string }[] | null;
  policyConstraints: PolicyConstraints | null;
  inhibitAnyPolicy: number | null;
  /** cRLDistributionPoints, or null when absent (§4.2.1.13). */
  distributionPoints: DistributionPoint[] | null;
}

export function readPathCertificate(der: Uint8Array): PathCertificate {
  // RFC 5280 §4.1: a certificate is DER; read leniently it could say what its DER twin does not.
  const notDer = certificateDerViolation(der);
  if (notDer) throw new DerError(`it is not DER (RFC 5280 §4.1): ${notDer}`);
  const fields = readCertificate(der);
  const [nb, na] = children(fields.validity);
  const extensions = readExtensions(fields);
  const find = (id: string): Uint8Array | null => extensions.find((e) => e.id === id)?.value ?? null;
  const bc = find(OID.basicConstraints);
  const ku = find(OID.keyUsage);
  const nc = find(EXT.nameConstraints);
  const san = find(EXT.subjectAltName);
  const cp = find(EXT.certificatePolicies);
  const pm = find(EXT.policyMappings);
  const pc = find(EXT.policyConstraints);
  const iap = find(EXT.inhibitAnyPolicy);
  const signatureAlgorithmId = children(readDerExact(der))[1]!;
  const signatureAlgorithm = algorithmOf(signatureAlgorithmId, 'signatureAlgorithm');
  const subjectKey = nameKey(fields.subject);
  const issuerKey = nameKey(fields.issuer);
  return {
    der,
    fields,
    name: formatName(fields.subject),
    notBefore: decodeTime(nb, 'notBefore'),
    notAfter: decodeTime(na, 'notAfter'),
    subjectKey,
    issuerKey,
    selfIssued: subjectKey === issuerKey,
    basicConstraints: bc ? readBasicConstraints(bc) : null,
    keyUsage: ku ? readKeyUsage(ku) : null,
    nameConstraints: nc ? readNameConstraints(nc) : null,
    altNames: san ? readGeneralNames(san) : null,
    unknownCritical: extensions.filter((e) => e.critical && !RECOGNISED.has(e.id)).map((e) => e.id),
    signatureAlgorithm,
    signatureAlgorithmId,
    policies: cp ? readCertificatePolicies(cp) : null,
    policyMappings: pm ? readPolicyMappings(pm) : null,
    policyConstraints: pc ? readPolicyConstraints(pc) : null,
    inhibitAnyPolicy: iap ? readInhibitAnyPolicy(iap) : null,
    distributionPoints: readDistributionPoints(fields),
  };
}
