/**
 * Certification path building and validation (RFC 5280 §6.1): from the signer up through the
 * certificates at hand to one of the operator's trust anchors. Issuers are found by name (§7.1);
 * when several certificates carry the issuer's name, each path is tried (those whose signatures
 * verify first) until one validates (path-validate.ts), within bounds an attacker's pool of
 * certificates cannot stretch. Every failure is named; nothing is silently skipped. Pure: the time
 * comes in.
 */
import { bytesEqual, children, expectTag, readDerExact, TAG } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { formatName } from './distinguished-name';
import { namesMatch } from './name-match';
import { readPathCertificate, type PathCertificate } from './path-certificate';
import { validatePath, validityFailures } from './path-validate';
import { verifySignedSequence } from './verify-signature';

/** Certificates in a path, trust anchor included. */
const MAX_DEPTH = 10;
/** Complete candidate paths validated before giving up, and issuer look-ups made while building. */
const MAX_CANDIDATES = 16;
const MAX_STEPS = 200;
/** Signature checks one build may make: a pool of namesakes cannot keep it verifying without end. */
const MAX_SIGNATURE_CHECKS = 256;

class BudgetSpent extends Error {}

export interface PathResult {
  /** Signer first; ends at a trust anchor when `trusted`, else where building stopped. */
  path: Uint8Array[];
  trusted: boolean;
  failures: string[];
  /** Certificate policies (§6.1.3 (d)-(f), PKITS 4.8-4.12) are not processed. */
  policies: 'not checked';
}

export function subjectOf(cert: Uint8Array): string {
  try {
    return formatName(readCertificate(cert).subject);
  } catch {
    return '(unreadable certificate)';
  }
}

/** True when `cert`'s issuer matches `issuer`'s subject (§7.1) and `issuer`'s key verifies `cert`'s signature. */
export function isIssuedBy(cert: Uint8Array, issuer: Uint8Array): boolean {
  try {
    if (!namesMatch(readCertificate(cert).issuer, readCertificate(issuer).subject)) return false;
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

interface Node {
  cert: PathCertificate;
  anchor: boolean;
}

/** The certificates to build from: anchors, then the pool without duplicates; unreadable ones cannot be issuers. */
function nodesOf(pool: Uint8Array[], anchors: Uint8Array[]): Node[] {
  const nodes: Node[] = [];
  for (const [list, anchor] of [[anchors, true], [pool, false]] as const) {
    for (const der of list) {
      if (nodes.some((n) => bytesEqual(n.cert.der, der))) continue;
      try {
        nodes.push({ cert: readPathCertificate(der), anchor });
      } catch {
        // Not a certificate this validator can read: it cannot be part of a path.
      }
    }
  }
  return nodes;
}

class PathBuilder {
  private readonly verified = new Map<PathCertificate, Map<PathCertificate, boolean>>();
  private steps = 0;
  private checks = 0;
  readonly complete: { path: Node[]; failures: string[] }[] = [];

  constructor(private readonly nodes: Node[], private readonly at: Date) {}

  readonly verify = (cert: PathCertificate, issuer: PathCertificate): boolean => {
    let row = this.verified.get(cert);
    if (!row) this.verified.set(cert, (row = new Map()));
    let ok = row.get(issuer);
    if (ok === undefined) {
      if (++this.checks > MAX_SIGNATURE_CHECKS) throw new BudgetSpent();
      try {
        ok = verifySignedSequence(children(expectTag(readDerExact(cert.der), TAG.SEQUENCE, 'Certificate')), issuer.der);
      } catch {
        ok = false;
      }
      row.set(issuer, ok);
    }
    return ok;
  };

  /** Certificates named as `cert`'s issuer: those whose key verifies it first, anchors before the pool. */
  issuersOf(cert: PathCertificate): Node[] {
    this.steps++;
    const named = this.nodes.filter((n) => n.cert.subjectKey === cert.issuerKey && n.cert !== cert && !bytesEqual(n.cert.der, cert.der));
    const verifies = named.map((n) => this.verify(cert, n.cert));
    return [...named.filter((_, i) => verifies[i]), ...named.filter((_, i) => !verifies[i])];
  }

  /** Depth first; stops at the first valid path or when its bounds are reached. */
  search(path: Node[]): boolean {
    if (this.steps >= MAX_STEPS || this.complete.length >= MAX_CANDIDATES) return false;
    for (const next of this.issuersOf(path[path.length - 1]!.cert)) {
      if (path.some((p) => p.cert === next.cert)) continue;
      const candidate = [...path, next];
      if (next.anchor) {
        const failures = validatePath(candidate.map((c) => c.cert), this.at, this.verify);
        this.complete.push({ path: candidate, failures });
        if (failures.length === 0) return true;
      } else if (candidate.length < MAX_DEPTH && this.search(candidate)) {
        return true;
      }
      if (this.steps >= MAX_STEPS || this.complete.length >= MAX_CANDIDATES) return false;
    }
    return false;
  }

  /** No path reached an anchor: follow the issuers whose signatures verify as far as they go, and say where it stopped. */
  partial(leaf: Node): { path: Node[]; failures: string[] } {
    const path = [leaf];
    const stop = (failure: string): { path: Node[]; failures: string[] } => ({ path, failures: [failure, ...path.flatMap((n) => validityFailures(n.cert, this.at))] });
    for (;;) {
      const current = path[path.length - 1]!.cert;
      const issuer = this.issuersOf(current).find((n) => this.verify(current, n.cert));
      if (!issuer) {
        if (current.selfIssued && this.verify(current, current)) return stop(`root ${current.name} is not a trust anchor`);
        return stop(`no issuer certificate for ${current.name} among the embedded and trusted certificates`);
      }
      if (path.some((p) => p.cert === issuer.cert)) return stop(`the path loops at ${issuer.cert.name}`);
      if (path.length >= MAX_DEPTH) return stop(`no path to a trust anchor within ${MAX_DEPTH} certificates`);
      path.push(issuer);
    }
  }
}

/**
 * The path from `leaf` to one of `anchors` through `pool`, validated at `at` (RFC 5280 §6.1). The
 * first valid path wins; when none is valid, the first one built (signatures verifying first) is
 * reported with its failures.
 */
export function buildPath(leaf: Uint8Array, pool: Uint8Array[], anchors: Uint8Array[], at: Date): PathResult {
  const result = buildOrFail(leaf, pool, anchors, at);
  if (anchors.length === 0) result.failures.unshift('no trust anchors are configured (--trust FILE)');
  return { ...result, trusted: result.trusted && result.failures.length === 0, policies: 'not checked' };
}

function buildOrFail(leaf: Uint8Array, pool: Uint8Array[], anchors: Uint8Array[], at: Date): Omit<PathResult, 'policies'> {
  let leafCert: PathCertificate;
  try {
    leafCert = readPathCertificate(leaf);
  } catch (e) {
    return { path: [leaf], trusted: false, failures: [`the certificate ${subjectOf(leaf)} cannot be read: ${(e as Error).message}`] };
  }
  const nodes = nodesOf(pool, anchors);
  const builder = new PathBuilder(nodes, at);
  const asAnchor = nodes.find((n) => n.anchor && bytesEqual(n.cert.der, leaf));
  if (asAnchor) {
    // The signer's own certificate is trusted: a path of the anchor alone (§6.1, n = 0).
    return { path: [leaf], trusted: true, failures: validityFailures(leafCert, at) };
  }
  const start: Node = { cert: leafCert, anchor: false };
  try {
    const found = builder.search([start]);
    const chosen = found ? builder.complete[builder.complete.length - 1] : builder.complete[0];
    if (chosen) return { path: chosen.path.map((n) => n.cert.der), trusted: found, failures: chosen.failures };
    const partial = builder.partial(start);
    return { path: partial.path.map((n) => n.cert.der), trusted: false, failures: partial.failures };
  } catch (e) {
    if (!(e instanceof BudgetSpent)) throw e;
    const first = builder.complete[0];
    const stopped = `path building stopped after ${MAX_SIGNATURE_CHECKS} signature checks (too many certificates of the same name)`;
    return { path: first ? first.path.map((n) => n.cert.der) : [leaf], trusted: false, failures: [...(first?.failures ?? []), stopped] };
  }
}
