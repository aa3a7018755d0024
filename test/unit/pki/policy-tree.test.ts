/**
 * The policy tree (pki/policy-tree.ts) on paths made here, for what PKITS does not reach: a tree
 * that would grow as the product of each certificate's mappings (OpenSSL's CVE-2023-0464) is
 * refused at its bound, not walked; the defaults of RFC 5280 §6.1.1 let a path without policies
 * pass and an explicit policy refuses it. PKITS 4.8-4.12 check the rest (pkits.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { PathCertificate } from '../../../src/pki/path-certificate';
import { MAX_POLICY_NODES, processPolicies } from '../../../src/pki/policy-tree';

const ARC = '1.3.6.1.4.1.99999.1';

/** A certificate as the policy tree reads it; nothing else of it is looked at. */
function cert(name: string, o: Partial<PathCertificate> = {}): PathCertificate {
  return { name, selfIssued: false, policies: null, policyMappings: null, policyConstraints: null, inhibitAnyPolicy: null, ...o } as PathCertificate;
}

describe('the valid policy tree (RFC 5280 §6.1)', () => {
  it('refuses a path whose mappings would multiply the tree past its bound', () => {
    const policies = Array.from({ length: 24 }, (_, i) => ({ policy: `${ARC}.${i}`, qualifiers: null }));
    const everyToEvery = policies.flatMap((a) => policies.map((b) => ({ issuer: a.policy, subject: b.policy })));
    const ca = (n: number) => cert(`CN=CA${n}`, { policies, policyMappings: everyToEvery });
    const path = [cert('CN=EE', { policies }), ca(4), ca(3), ca(2), ca(1), cert('CN=Anchor')];
    // The whole product would be 24^5 nodes: the tree stops at its bound and says so.
    expect(processPolicies(path)).toEqual({ failures: [`the certificate policy tree grows past ${MAX_POLICY_NODES} nodes`], userConstrained: [] });
  });

  it('with the default inputs, a path that asserts no policy is valid for none; an explicit policy refuses it', () => {
    const path = [cert('CN=EE'), cert('CN=CA'), cert('CN=Anchor')];
    expect(processPolicies(path)).toEqual({ failures: [], userConstrained: [] });
    expect(processPolicies(path, { initialExplicitPolicy: true }).failures).toEqual([
      'certificate CN=CA: no valid certificate policy, and an explicit policy is required (RFC 5280 §6.1.3 (f))',
    ]);
  });
});
