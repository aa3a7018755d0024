/**
 * Certification path building and checking (RFC 5280 §6.1, simplified to what a signature report
 * needs): from the signer up through the certificates at hand to one of the operator's trust
 * anchors, each link's signature verified, each issuer a CA, each certificate valid at the time
 * asked. Every failure is named; nothing is silently skipped. Pure: the time comes in.
 */
import { bytesEqual, children, expectTag, readDerExact, TAG } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { decodeTime } from '../der/time';
import { isCaCertificate } from '../der/x509-extensions';
import { formatName } from './distinguished-name';
import { verifySignedSequence } from './verify-signature';

const MAX_DEPTH = 10;

export interface PathResult {
  /** Signer first; ends at a trust anchor when `trusted`, else where building stopped. */
  path: Uint8Array[];
  trusted: boolean;
  failures: string[];
}

export function subjectOf(cert: Uint8Array): string {
  try {
    return formatName(readCertificate(cert).subject);
  } catch {
    return '(unreadable certificate)';
  }
}

export function validityOf(cert: Uint8Array): { notBefore: Date; notAfter: Date } {
  const [nb, na] = children(readCertificate(cert).validity);
  return { notBefore: decodeTime(nb, 'notBefore'), notAfter: decodeTime(na, 'notAfter') };
}

/** True when `issuer`'s subject is `cert`'s issuer and its key verifies `cert`'s signature. */
export function isIssuedBy(cert: Uint8Array, issuer: Uint8Array): boolean {
  try {
    if (!bytesEqual(readCertificate(cert).issuer.raw, readCertificate(issuer).subject.raw)) return false;
    return verifySignedSequence(children(expectTag(readDerExact(cert), TAG.SEQUENCE, 'Certificate')), issuer);
  } catch {
    return false;
  }
}

export function isSelfIssued(cert: Uint8Array): boolean {
  return isIssuedBy(cert, cert);
}

/** The issuer of `cert` among `candidates` (anchors first), or null. */
export function findIssuer(cert: Uint8Array, candidates: Uint8Array[]): Uint8Array | null {
  return candidates.find((c) => !bytesEqual(c, cert) && isIssuedBy(cert, c)) ?? null;
}

export function buildPath(leaf: Uint8Array, pool: Uint8Array[], anchors: Uint8Array[], at: Date): PathResult {
  const path = [leaf];
  const failures: string[] = [];
  let trusted = false;
  for (let current = leaf; path.length <= MAX_DEPTH; ) {
    if (anchors.some((a) => bytesEqual(a, current))) {
      trusted = true;
      break;
    }
    const issuer = findIssuer(current, [...anchors, ...pool]);
    if (!issuer) {
      if (isSelfIssued(current)) failures.push(`root ${subjectOf(current)} is not a trust anchor`);
      else failures.push(`no issuer certificate for ${subjectOf(current)} among the embedded and trusted certificates`);
      break;
    }
    if (path.some((p) => bytesEqual(p, issuer))) {
      failures.push(`the path loops at ${subjectOf(issuer)}`);
      break;
    }
    if (!isCaCertificate(issuer)) failures.push(`issuer ${subjectOf(issuer)} is not a CA (basicConstraints)`);
    path.push(issuer);
    current = issuer;
  }
  if (anchors.length === 0) failures.unshift('no trust anchors are configured (--trust FILE)');
  for (const cert of path) {
    const { notBefore, notAfter } = validityOf(cert);
    if (at < notBefore) failures.push(`${subjectOf(cert)} is not valid before ${notBefore.toISOString()}`);
    if (at > notAfter) failures.push(`${subjectOf(cert)} expired on ${notAfter.toISOString()}`);
  }
  return { path, trusted: trusted && failures.length === 0, failures };
}
