/**
 * Certification path building and validation (RFC 5280 §6.1): from the signer up through the
 * certificates at hand to one of the operator's trust anchors. Issuers are found by name (§7.1);
 * when several certificates carry the issuer's name, each path is tried (those whose signatures
 * verify first) until one validates (path-validate.ts, then the revocation status of each of its
 * certificates: revocation.ts), within bounds an attacker's pool of certificates cannot stretch.
 * Every failure is named; nothing is silently skipped. Pure: the time comes in.
 */
import { bytesEqual, children, expectTag, readDerExact, TAG, type Der } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { formatName } from './distinguished-name';
import { namesMatch } from './name-match';
import { readPathCertificate, type PathCertificate } from './path-certificate';
import { validatePath, validityFailures } from './path-validate';
import { processPolicies, type PolicyInputs } from './policy-tree';
import { certificateStatus, revocationFailure, type RevocationEntry, type RevocationOptions, type StatusContext } from './revocation';
import { verifySignedSequence } from './verify-signature';

/** Certificates in a path, trust anchor included. */
const MAX_DEPTH = 10;
/** Complete candidate paths validated before giving up, and issuer look-ups made while building. */
const MAX_CANDIDATES = 16;
const MAX_STEPS = 200;
/** Signature checks one build may make: a pool of namesakes cannot keep it verifying without end. */
const MAX_SIGNATURE_CHECKS = 256;

class BudgetSpent extends Error {}

/** CRL issuers validated in turn (§6.3.3 (f)): the CRL signer of a CRL signer of a CRL signer. */
const MAX_CRL_ISSUER_DEPTH = 3;

export interface PathResult {
  /** Signer first; ends at a trust anchor when `trusted`, else where building stopped. */
  path: Uint8Array[];
  trusted: boolean;
  failures: string[];
  /** The user-constrained policy set of the valid path (§6.1.6); empty when not trusted. */
  policies: string[];
  /** The status of each certificate of `path` but the trust anchor; empty without revocation options. */
  revocation: RevocationEntry[];
}

export interface PathOptions {
  /** The CRLs and OCSP responses at hand and what their absence means; absent: revocation is not checked. */
  revocation?: RevocationOptions;
  /** RFC 5280 §6.1.1 (c), (e)-(g); RFC 5280's defaults when absent. */
  certificatePolicies?: PolicyInputs;
}

/** What one validation shares with the builds it starts for CRL issuers. */
interface Shared {
  nodes: Node[];
  at: Date;
  options: PathOptions;
  /** CRL issuers being validated (a loop of CRL issuers is not followed). */
  visiting: Set<PathCertificate>;
  depth: number;
  /** A CRL issuer's failures on its own path, by issuer and trust anchor. */
  crlIssuers: Map<PathCertificate, Map<PathCertificate, string[]>>;
  verifiedLists: WeakMap<Der, Map<PathCertificate, boolean>>;
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

interface Candidate {
  path: Node[];
  failures: string[];
  policies: string[];
  revocation: RevocationEntry[];
}

class PathBuilder {
  private readonly verified = new Map<PathCertificate, Map<PathCertificate, boolean>>();
  private steps = 0;
  private checks = 0;
  readonly complete: Candidate[] = [];

  constructor(private readonly shared: Shared) {}

  private spend(): void {
    if (++this.checks > MAX_SIGNATURE_CHECKS) throw new BudgetSpent();
  }

  readonly verify = (cert: PathCertificate, issuer: PathCertificate): boolean => {
    let row = this.verified.get(cert);
    if (!row) this.verified.set(cert, (row = new Map()));
    let ok = row.get(issuer);
    if (ok === undefined) {
      this.spend();
      try {
        ok = verifySignedSequence(children(expectTag(readDerExact(cert.der), TAG.SEQUENCE, 'Certificate')), issuer.der);
      } catch {
        ok = false;
      }
      row.set(issuer, ok);
    }
    return ok;
  };

  /** A CRL's signature (tbsCertList, algorithm, value) with `signer`'s key, remembered for the whole validation. */
  private readonly verifiesList = (signed: Der[], signer: PathCertificate): boolean => {
    const memo = this.shared.verifiedLists;
    let row = memo.get(signed[0]!);
    if (!row) memo.set(signed[0]!, (row = new Map()));
    let ok = row.get(signer);
    if (ok === undefined) {
      this.spend();
      try {
        ok = verifySignedSequence(signed, signer.der);
      } catch {
        ok = false;
      }
      row.set(signer, ok);
    }
    return ok;
  };

  /** Certificates named as `cert`'s issuer: those whose key verifies it first, anchors before the pool. */
  issuersOf(cert: PathCertificate): Node[] {
    this.steps++;
    const named = this.shared.nodes.filter((n) => n.cert.subjectKey === cert.issuerKey && n.cert !== cert && !bytesEqual(n.cert.der, cert.der));
    const verifies = named.map((n) => this.verify(cert, n.cert));
    return [...named.filter((_, i) => verifies[i]), ...named.filter((_, i) => !verifies[i])];
  }

  /** §6.1.3 (a)(3): the status of every certificate of `path` below its top, and the failures it makes. */
  revocation(path: Node[]): { entries: RevocationEntry[]; failures: string[] } {
    const options = this.shared.options.revocation;
    if (!options) return { entries: [], failures: [] };
    const top = path[path.length - 1]!;
    const anchor = top.anchor ? top.cert : null;
    const entries: RevocationEntry[] = [];
    for (let i = 0; i < path.length - 1; i++) {
      const above = path.slice(i + 1).map((n) => n.cert);
      const ctx: StatusContext = {
        at: this.shared.at,
        data: options.data,
        signersNamed: (key) => {
          const named = this.shared.nodes.map((n) => n.cert).filter((c) => c.subjectKey === key);
          return [...above.filter((c) => c.subjectKey === key), ...named.filter((c) => !above.includes(c))];
        },
        signerFailures: (signer) => (above.includes(signer) ? [] : this.crlIssuerFailures(signer, anchor)),
        verifies: this.verifiesList,
      };
      entries.push(certificateStatus(path[i]!.cert, path[i + 1]!.cert, ctx));
    }
    const failures = entries.map((e) => revocationFailure(e, options.policy)).filter((f): f is string => f !== null);
    return { entries, failures };
  }

  /** §6.3.3 (f): a CRL issuer outside the path needs its own path to the same trust anchor, revocation included. */
  private crlIssuerFailures(signer: PathCertificate, anchor: PathCertificate | null): string[] {
    if (!anchor) return ['it is not in the path and there is no trust anchor to validate it against'];
    if (bytesEqual(signer.der, anchor.der)) return [];
    const s = this.shared;
    const known = s.crlIssuers.get(signer)?.get(anchor);
    if (known) return known;
    if (s.depth >= MAX_CRL_ISSUER_DEPTH) return [`CRL issuers are followed ${MAX_CRL_ISSUER_DEPTH} deep at most`];
    // A CRL issuer whose own status is on the CRL it signs (PKITS 4.14.30): its path is the one
    // being validated further up, which this CRL is part of.
    if (s.visiting.has(signer)) return [];
    s.visiting.add(signer);
    let failures: string[];
    try {
      const nodes = s.nodes.filter((n) => !n.anchor || n.cert === anchor);
      const r = build(signer.der, { ...s, nodes, depth: s.depth + 1 });
      failures = r.trusted ? [] : r.failures;
    } finally {
      s.visiting.delete(signer);
    }
    (s.crlIssuers.get(signer) ?? s.crlIssuers.set(signer, new Map()).get(signer)!).set(anchor, failures);
    return failures;
  }

  /** A complete candidate path: §6.1 first, then the revocation status of each certificate. */
  judge(path: Node[]): Candidate {
    const checked = validatePath(path.map((c) => c.cert), this.shared.at, this.verify, this.shared.options.certificatePolicies);
    const status = checked.failures.length === 0 ? this.revocation(path) : { entries: [], failures: [] };
    return { path, failures: [...checked.failures, ...status.failures], policies: checked.policies, revocation: status.entries };
  }

  /** Depth first; stops at the first valid path or when its bounds are reached. */
  search(path: Node[]): boolean {
    if (this.steps >= MAX_STEPS || this.complete.length >= MAX_CANDIDATES) return false;
    for (const next of this.issuersOf(path[path.length - 1]!.cert)) {
      if (path.some((p) => p.cert === next.cert)) continue;
      const candidate = [...path, next];
      if (next.anchor) {
        const judged = this.judge(candidate);
        this.complete.push(judged);
        if (judged.failures.length === 0) return true;
      } else if (candidate.length < MAX_DEPTH && this.search(candidate)) {
        return true;
      }
      if (this.steps >= MAX_STEPS || this.complete.length >= MAX_CANDIDATES) return false;
    }
    return false;
  }

  /** No path reached an anchor: follow the issuers whose signatures verify as far as they go, and say where it stopped. */
  partial(leaf: Node): Candidate {
    const path = [leaf];
    const stop = (failure: string): Candidate => ({
      path,
      failures: [failure, ...path.flatMap((n) => validityFailures(n.cert, this.shared.at))],
      policies: [],
      revocation: this.revocation(path).entries,
    });
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
 * The path from `leaf` to one of `anchors` through `pool`, validated at `at` (RFC 5280 §6.1, with
 * revocation when `options.revocation` is given). The first valid path wins; when none is valid,
 * the first one built (signatures verifying first) is reported with its failures.
 */
export function buildPath(leaf: Uint8Array, pool: Uint8Array[], anchors: Uint8Array[], at: Date, options: PathOptions = {}): PathResult {
  const shared: Shared = { nodes: nodesOf(pool, anchors), at, options, visiting: new Set(), depth: 0, crlIssuers: new Map(), verifiedLists: new WeakMap() };
  const result = build(leaf, shared);
  if (anchors.length === 0) result.failures.unshift('no trust anchors are configured (--trust FILE)');
  return { ...result, trusted: result.trusted && result.failures.length === 0 };
}

function build(leaf: Uint8Array, shared: Shared): PathResult {
  let leafCert: PathCertificate;
  try {
    leafCert = readPathCertificate(leaf);
  } catch (e) {
    return { path: [leaf], trusted: false, failures: [`the certificate ${subjectOf(leaf)} cannot be read: ${(e as Error).message}`], policies: [], revocation: [] };
  }
  const builder = new PathBuilder(shared);
  const asAnchor = shared.nodes.find((n) => n.anchor && bytesEqual(n.cert.der, leaf));
  if (asAnchor) {
    // The signer's own certificate is trusted: a path of the anchor alone (§6.1, n = 0).
    const failures = validityFailures(asAnchor.cert, shared.at);
    const policies = failures.length === 0 ? processPolicies([asAnchor.cert], shared.options.certificatePolicies).userConstrained : [];
    return { path: [leaf], trusted: failures.length === 0, failures, policies, revocation: [] };
  }
  const start: Node = { cert: leafCert, anchor: false };
  const shape = (c: Candidate, trusted: boolean): PathResult => ({
    path: c.path.map((n) => n.cert.der),
    trusted,
    failures: c.failures,
    policies: trusted ? c.policies : [],
    revocation: c.revocation,
  });
  try {
    const found = builder.search([start]);
    const chosen = found ? builder.complete[builder.complete.length - 1] : builder.complete[0];
    if (!chosen) return shape(builder.partial(start), false);
    // A path that failed §6.1 was not asked about revocation (judge): its statuses are still reported.
    return shape(found || chosen.revocation.length > 0 ? chosen : { ...chosen, revocation: builder.revocation(chosen.path).entries }, found);
  } catch (e) {
    if (!(e instanceof BudgetSpent)) throw e;
    const first = builder.complete[0];
    const stopped = `path building stopped after ${MAX_SIGNATURE_CHECKS} signature checks (too many certificates of the same name)`;
    return { path: first ? first.path.map((n) => n.cert.der) : [leaf], trusted: false, failures: [...(first?.failures ?? []), stopped], policies: [], revocation: first?.revocation ?? [] };
  }
}
