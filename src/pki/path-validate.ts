/**
 * Basic path validation, RFC 5280 §6.1, over a path built elsewhere: signatures, validity at the
 * time asked, name chaining (§7.1), name constraints, basicConstraints with pathLenConstraint,
 * keyUsage keyCertSign on every CA, unknown critical extensions, and certificate policies
 * (policy-tree.ts). Revocation (§6.1.3 (a)(3)) is the caller's: chain.ts with revocation.ts.
 *
 * The trust anchor is the name and key of the last certificate (§6.1.1 (d)); its own extensions
 * constrain nothing, as in §6.1. Its validity is still checked: an operator's expired root is
 * named rather than trusted forever.
 */
import { KEY_USAGE } from '../der/x509-constraints';
import { checkNameConstraints } from './name-constraints';
import type { PathCertificate } from './path-certificate';
import { signatureScheme } from './signature-scheme';
import { processPolicies, type PolicyInputs } from './policy-tree';

/** Whether `cert`'s signature verifies with `issuer`'s key; the builder caches it. */
export type SignatureCheck = (cert: PathCertificate, issuer: PathCertificate) => boolean;

/** §6.1.3 (a)(2): `at` within notBefore..notAfter. */
export function validityFailures(c: PathCertificate, at: Date): string[] {
  if (at < c.notBefore) return [`${c.name} is not valid before ${c.notBefore.toISOString()}`];
  if (at > c.notAfter) return [`${c.name} expired on ${c.notAfter.toISOString()}`];
  return [];
}

/** §6.1.3 (a)(1): the signature, or why it cannot be checked. */
function signatureFailure(c: PathCertificate, issuer: PathCertificate, verify: SignatureCheck): string | null {
  try {
    signatureScheme(c.signatureAlgorithmId);
  } catch (e) {
    return `certificate ${c.name}: ${(e as Error).message}`;
  }
  return verify(c, issuer) ? null : `signature of ${c.name} does not verify with the key of ${issuer.name}`;
}

/** §6.1.4 (k), (n): a CA by basicConstraints (v1 and v2 certificates have none, so are not CAs here), keyCertSign when keyUsage is present. */
function caFailures(c: PathCertificate): string[] {
  const out: string[] = [];
  if (!c.basicConstraints?.ca) out.push(`issuer ${c.name} is not a CA (basicConstraints)`);
  if (c.keyUsage && !c.keyUsage.has(KEY_USAGE.keyCertSign)) out.push(`issuer ${c.name} has a keyUsage without keyCertSign`);
  return out;
}

export interface PathValidation {
  /** One line each, grouped by certificate from the end entity up; none means the path is valid. */
  failures: string[];
  /** The user-constrained policy set (§6.1.6), empty when the path is invalid. */
  policies: string[];
}

/** `path` (end entity first, trust anchor last) validated at time `at` with the policy inputs of §6.1.1. */
export function validatePath(path: PathCertificate[], at: Date, verify: SignatureCheck, policyInputs: PolicyInputs = {}): PathValidation {
  const failures = basicFailures(path, at, verify);
  if (failures.length > 0) return { failures, policies: [] };
  const policy = processPolicies(path, policyInputs);
  return { failures: policy.failures, policies: policy.userConstrained };
}

function basicFailures(path: PathCertificate[], at: Date, verify: SignatureCheck): string[] {
  const n = path.length - 1; // certificates below the anchor (§6.1: a path of length n)
  const byCertificate = path.map((c) => validityFailures(c, at));
  let maxPathLength = n; // §6.1.2 (k)
  let limitSetBy: { name: string; value: number } | null = null;
  const constraints: { nc: NonNullable<PathCertificate['nameConstraints']>; by: string }[] = [];
  // §6.1.3 and §6.1.4, from the certificate the anchor issued (i = 1) down to the end entity (i = n).
  for (let i = 1; i <= n; i++) {
    const c = path[n - i]!;
    const issuer = path[n - i + 1]!;
    const mine = byCertificate[n - i]!;
    const sig = signatureFailure(c, issuer, verify);
    if (sig) mine.push(sig);
    // §6.1.3 (a)(4): the builder matched names, but a path given whole is checked the same way.
    if (c.issuerKey !== issuer.subjectKey) mine.push(`the issuer of ${c.name} is not ${issuer.name} (RFC 5280 §7.1)`);
    // §6.1.3 (b), (c): a self-issued intermediate is exempt; the end entity never is.
    if (!c.selfIssued || i === n) for (const k of constraints) mine.push(...checkNameConstraints(c, k.nc, k.by));
    // §6.1.4 (o), §6.1.5 (f): an unknown critical extension refuses the certificate.
    for (const id of c.unknownCritical) mine.push(`certificate ${c.name}: unknown critical extension ${id}`);
    if (i === n) break;
    // §6.1.4 (g): this CA's constraints bind every certificate after it.
    if (c.nameConstraints) constraints.push({ nc: c.nameConstraints, by: c.name });
    mine.push(...caFailures(c));
    // §6.1.4 (l), (m): each CA that is not self-issued takes one step of the smallest limit above it.
    if (!c.selfIssued) {
      if (maxPathLength <= 0 && limitSetBy) mine.push(`certificate ${c.name}: pathLenConstraint ${limitSetBy.value} of ${limitSetBy.name} exceeded`);
      maxPathLength--;
    }
    const pathLen = c.basicConstraints?.pathLen ?? null;
    if (pathLen !== null && pathLen < maxPathLength) {
      maxPathLength = pathLen;
      limitSetBy = { name: c.name, value: pathLen };
    }
  }
  return byCertificate.flat();
}
