/**
 * Certificate policy processing, RFC 5280 §6.1: the valid_policy_tree built over the path
 * (§6.1.3 (d)-(f)), policy mappings applied or inhibited (§6.1.4 (a)-(b)), the explicit_policy,
 * policy_mapping and inhibit_anyPolicy counters (§6.1.4 (h)-(j)), and the wrap-up with the
 * intersection against the user-initial-policy-set (§6.1.5 (a), (b), (g)). The four inputs of
 * §6.1.1 (c), (e)-(g) default as RFC 5280 leaves them to the relying party: any policy, no
 * explicit policy required, mapping and anyPolicy allowed.
 *
 * The tree can grow as the product of the policies of each certificate (a path of a few
 * certificates each mapping many policies to many: CVE-2023-0464 in OpenSSL); it is refused past
 * MAX_POLICY_NODES rather than walked.
 */
import { ANY_POLICY } from '../der/x509-policies';
import type { PathCertificate } from './path-certificate';

/** §6.1.1 (c), (e), (f), (g). */
export interface PolicyInputs {
  /** user-initial-policy-set; default {anyPolicy}. */
  initialPolicySet?: string[];
  initialExplicitPolicy?: boolean;
  initialPolicyMappingInhibit?: boolean;
  initialAnyPolicyInhibit?: boolean;
}

export interface PolicyOutcome {
  failures: string[];
  /** The user-constrained policy set: the policies the path is valid for, in the relying party's domain; anyPolicy when unrestricted, empty for a NULL tree. */
  userConstrained: string[];
}

/** Nodes a path's policy tree may hold: a thousand times more than any real path needs. */
export const MAX_POLICY_NODES = 4_096;

class TooLarge extends Error {}

interface PolicyNode {
  depth: number;
  policy: string;
  qualifiers: Uint8Array | null;
  expected: Set<string>;
  parent: PolicyNode | null;
  children: PolicyNode[];
}

class PolicyTree {
  /** levels[d]: the nodes of depth d; null once the tree is NULL. */
  levels: PolicyNode[][] | null;
  private made = 1;

  constructor() {
    this.levels = [[{ depth: 0, policy: ANY_POLICY, qualifiers: null, expected: new Set([ANY_POLICY]), parent: null, children: [] }]];
  }

  add(parent: PolicyNode, depth: number, policy: string, qualifiers: Uint8Array | null, expected: Set<string>): void {
    if (++this.made > MAX_POLICY_NODES) throw new TooLarge();
    const node: PolicyNode = { depth, policy, qualifiers, expected, parent, children: [] };
    parent.children.push(node);
    (this.levels![depth] ??= []).push(node);
  }

  /** Deletes `node` and everything below it. */
  remove(node: PolicyNode): void {
    const levels = this.levels!;
    for (let d = node.depth, layer = [node]; layer.length > 0 && levels[d]; d++) {
      levels[d] = levels[d]!.filter((n) => !layer.includes(n));
      layer = layer.flatMap((n) => n.children);
    }
    if (node.parent) node.parent.children = node.parent.children.filter((c) => c !== node);
  }

  /** Deletes the nodes of depth `upTo` or less without children, repeatedly; the tree is NULL when the root goes. */
  prune(upTo: number): void {
    const levels = this.levels!;
    for (let d = Math.min(upTo, levels.length - 1); d >= 0; d--) {
      for (const n of levels[d]!.filter((x) => x.children.length === 0)) this.remove(n);
    }
    if (levels[0]!.length === 0) this.levels = null;
  }
}

const qualifiersOf = (c: PathCertificate, policy: string): Uint8Array | null => c.policies?.find((p) => p.policy === policy)?.qualifiers ?? null;

/** §6.1.3 (d)-(e) for certificate `i` of `n`. */
function addCertificate(tree: PolicyTree, c: PathCertificate, i: number, n: number, inhibitAnyPolicy: number): void {
  if (!c.policies) {
    tree.levels = null; // (e)
    return;
  }
  const parents = tree.levels![i - 1] ?? [];
  for (const { policy, qualifiers } of c.policies) {
    if (policy === ANY_POLICY) continue;
    // (d)(1)(i) a parent expecting it, else (ii) every anyPolicy parent.
    const matched = parents.filter((p) => p.expected.has(policy));
    for (const p of matched.length > 0 ? matched : parents.filter((x) => x.policy === ANY_POLICY)) tree.add(p, i, policy, qualifiers, new Set([policy]));
  }
  // (d)(2): anyPolicy asserted and not inhibited (a self-issued intermediate is exempt).
  if (c.policies.some((p) => p.policy === ANY_POLICY) && (inhibitAnyPolicy > 0 || (i < n && c.selfIssued))) {
    const anyQualifiers = qualifiersOf(c, ANY_POLICY);
    for (const p of parents) {
      for (const value of p.expected) if (!p.children.some((k) => k.policy === value)) tree.add(p, i, value, anyQualifiers, new Set([value]));
    }
  }
  tree.prune(i - 1); // (d)(3)
}

/** §6.1.4 (b): the mappings of certificate `i` applied to the nodes of depth i, or those nodes deleted when mapping is inhibited. */
function applyMappings(tree: PolicyTree, c: PathCertificate, i: number, policyMapping: number): void {
  const mapped = new Map<string, Set<string>>();
  for (const m of c.policyMappings ?? []) (mapped.get(m.issuer) ?? mapped.set(m.issuer, new Set()).get(m.issuer)!).add(m.subject);
  for (const [issuerPolicy, subjects] of mapped) {
    if (!tree.levels) return;
    const level = tree.levels[i] ?? [];
    const nodes = level.filter((n) => n.policy === issuerPolicy);
    if (policyMapping > 0) {
      for (const n of nodes) n.expected = new Set(subjects);
      const any = level.find((n) => n.policy === ANY_POLICY);
      if (nodes.length === 0 && any?.parent) tree.add(any.parent, i, issuerPolicy, qualifiersOf(c, ANY_POLICY), new Set(subjects));
    } else {
      for (const n of nodes) tree.remove(n);
      tree.prune(i - 1);
    }
  }
}

/**
 * The policy a leaf stands for in the relying party's domain (X.509 §12.5.2, the
 * user-constrained-policy-set): the first policy below anyPolicy on its branch, which mappings
 * further down renamed; anyPolicy for a branch of anyPolicy alone.
 */
function inUserDomain(leaf: PolicyNode): string {
  let node = leaf;
  while (node.parent && node.parent.policy !== ANY_POLICY) node = node.parent;
  return node.policy;
}

/** §6.1.5 (g): the tree intersected with the user-initial-policy-set. */
function intersect(tree: PolicyTree, n: number, initial: Set<string>): void {
  if (!tree.levels || initial.has(ANY_POLICY)) return;
  const levels = tree.levels;
  const nodeSet = () => levels.flat().filter((x) => x.parent?.policy === ANY_POLICY);
  for (const node of nodeSet()) if (node.policy !== ANY_POLICY && !initial.has(node.policy)) tree.remove(node);
  const anyLeaf = (levels[n] ?? []).find((x) => x.policy === ANY_POLICY);
  if (anyLeaf?.parent) {
    const present = new Set(nodeSet().map((x) => x.policy));
    for (const p of initial) if (!present.has(p)) tree.add(anyLeaf.parent, n, p, anyLeaf.qualifiers, new Set([p]));
    tree.remove(anyLeaf);
  }
  tree.prune(n - 1);
}

/**
 * The policy processing of `path` (end entity first, trust anchor last, as validatePath takes it):
 * its failures (at most one: the path stops being valid there) and the user-constrained policy set.
 */
export function processPolicies(path: PathCertificate[], inputs: PolicyInputs = {}): PolicyOutcome {
  const n = path.length - 1;
  const initial = new Set(inputs.initialPolicySet && inputs.initialPolicySet.length > 0 ? inputs.initialPolicySet : [ANY_POLICY]);
  if (n === 0) return { failures: [], userConstrained: [...initial] };
  const tree = new PolicyTree();
  // §6.1.2 (d)-(f).
  let explicitPolicy = inputs.initialExplicitPolicy ? 0 : n + 1;
  let inhibitAnyPolicy = inputs.initialAnyPolicyInhibit ? 0 : n + 1;
  let policyMapping = inputs.initialPolicyMappingInhibit ? 0 : n + 1;
  const fail = (why: string): PolicyOutcome => ({ failures: [why], userConstrained: [] });
  try {
    for (let i = 1; i <= n; i++) {
      const c = path[n - i]!;
      if (tree.levels) addCertificate(tree, c, i, n, inhibitAnyPolicy);
      // (f): from here on the path must carry a policy.
      if (explicitPolicy === 0 && !tree.levels) return fail(`certificate ${c.name}: no valid certificate policy, and an explicit policy is required (RFC 5280 §6.1.3 (f))`);
      if (i === n) break;
      // §6.1.4 (a): anyPolicy is never mapped.
      if (c.policyMappings?.some((m) => m.issuer === ANY_POLICY || m.subject === ANY_POLICY)) return fail(`certificate ${c.name}: a policy mapping to or from anyPolicy (RFC 5280 §6.1.4 (a))`);
      if (c.policyMappings && tree.levels) applyMappings(tree, c, i, policyMapping);
      // (h)-(j).
      if (!c.selfIssued) {
        if (explicitPolicy > 0) explicitPolicy--;
        if (policyMapping > 0) policyMapping--;
        if (inhibitAnyPolicy > 0) inhibitAnyPolicy--;
      }
      const pc = c.policyConstraints;
      if (pc?.requireExplicitPolicy != null && pc.requireExplicitPolicy < explicitPolicy) explicitPolicy = pc.requireExplicitPolicy;
      if (pc?.inhibitPolicyMapping != null && pc.inhibitPolicyMapping < policyMapping) policyMapping = pc.inhibitPolicyMapping;
      if (c.inhibitAnyPolicy !== null && c.inhibitAnyPolicy < inhibitAnyPolicy) inhibitAnyPolicy = c.inhibitAnyPolicy;
    }
    // §6.1.5 (a), (b).
    const leaf = path[0]!;
    if (explicitPolicy > 0) explicitPolicy--;
    if (leaf.policyConstraints?.requireExplicitPolicy === 0) explicitPolicy = 0;
    intersect(tree, n, initial);
    const userConstrained = [...new Set((tree.levels?.[n] ?? []).map(inUserDomain))];
    if (explicitPolicy === 0 && userConstrained.length === 0) {
      return fail(`no certificate policy of the path is acceptable (${[...initial].join(', ')}), and an explicit policy is required (RFC 5280 §6.1.5)`);
    }
    return { failures: [], userConstrained };
  } catch (e) {
    if (e instanceof TooLarge) return fail(`the certificate policy tree grows past ${MAX_POLICY_NODES} nodes`);
    throw e;
  }
}
