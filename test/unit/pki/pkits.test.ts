/**
 * NIST PKITS 4.1-4.16 through buildPath (pki/chain.ts): the trust anchor "Trust Anchor Root
 * Certificate", each case's intermediates as the pool, its CRLs and the anchor's as the
 * revocation data, revocation required, the case's certificate policy inputs (RFC 5280 §6.1.1),
 * judged on a fixed date inside the certificates' validity. The expected outcome and the expected
 * user-constrained policy set of every case are PKITS's own (test/helpers/pkits-cases.ts says
 * where that table comes from), never what localsign answers.
 *
 * The data is ../shared/vectors/pkits-all/ (wbond/certvalidator's copy: every certificate, 123 of
 * PKITS's 173 CRLs). A case whose CRLs are not all there cannot be run with revocation required:
 * its `require` test is skipped naming the files, and it runs with `if-available` instead, which
 * still judges every CRL that is there. DSA (4.1.4-4.1.6) is refused by name, as in Chromium.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPath, type PathResult } from '../../../src/pki/chain';
import { parseCrl } from '../../../src/pki/crl';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { DSA_CASES, missingFiles, NIST_TEST_POLICY_1, PKITS_CASES, sectionOf, type PkitsCase } from '../../helpers/pkits-cases';

const DIR = outsideVectors('pkits-all');
/** Inside every PKITS certificate's and CRL's validity (2010-01-01 to 2030-12-31) but those PKITS makes wrong on purpose. */
const AT = new Date('2021-01-01T00:00:00Z');
const O = 'O=Test Certificates 2011,C=US';

const cert = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR!, 'certs', `${name}.crt`)));
const crl = (name: string) => ({ crl: parseCrl(new Uint8Array(readFileSync(join(DIR!, 'crls', `${name}.crl`)))), foundIn: 'signature' as const });

function run(c: PkitsCase, policy: 'require' | 'if-available', at = AT): PathResult {
  const present = ['TrustAnchorRootCRL', ...c.crls].filter((n) => existsSync(join(DIR!, 'crls', `${n}.crl`)));
  return buildPath(cert(c.certificates.at(-1)!), c.certificates.slice(0, -1).map(cert), [cert('TrustAnchorRootCertificate')], at, {
    revocation: { data: { crls: present.map(crl), ocsps: [] }, policy },
    certificatePolicies: { initialPolicySet: c.initialPolicySet, initialExplicitPolicy: c.explicitPolicy, initialPolicyMappingInhibit: c.policyMappingInhibit, initialAnyPolicyInhibit: c.anyPolicyInhibit },
  });
}

function expectAgreement(c: PkitsCase, r: PathResult): void {
  expect(r.trusted, r.failures.join('\n')).toBe(c.valid);
  if (c.valid) {
    expect(r.failures).toEqual([]);
    expect([...r.policies].sort()).toEqual([...(c.userConstrained ?? [NIST_TEST_POLICY_1])].sort());
    // Some cases list certificates only their CRLs need (4.4.19, 4.5.4, 4.14.24): the path may be shorter.
    expect([r.path[0], r.path.at(-1)]).toEqual([cert(c.certificates.at(-1)!), cert('TrustAnchorRootCertificate')]);
  } else {
    expect(r.failures.length).toBeGreaterThan(0);
  }
}

const CASES = PKITS_CASES.filter((c) => !DSA_CASES.has(c.id));

describe.skipIf(!DIR)(`NIST PKITS 4.1-4.16 through buildPath, revocation required${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  it('holds every test of PKITS section 4 once: 249 runs of 224 tests, 3 of them DSA', () => {
    expect(new Set(PKITS_CASES.map((c) => c.name)).size).toBe(PKITS_CASES.length);
    expect([PKITS_CASES.length, new Set(PKITS_CASES.map((c) => c.id)).size, CASES.length]).toEqual([249, 224, 246]);
    const sections = [...new Set(PKITS_CASES.map((c) => sectionOf(c.id)))];
    expect(sections).toEqual(Array.from({ length: 16 }, (_, i) => `4.${i + 1}`));
  });

  for (const c of CASES) {
    const missing = DIR ? missingFiles(DIR, c) : [];
    const label = `${c.name} ${c.title}: ${c.valid ? 'valid' : 'invalid'}${c.nonDefault ? ' (non-default policy inputs)' : ''}`;
    if (missing.length === 0) {
      it(label, () => expectAgreement(c, run(c, 'require')));
    } else {
      it.skip(`${label}, revocation required: skipped, ../shared/vectors/pkits-all lacks ${missing.join(', ')}`, () => {});
      it(`${label}, revocation if-available (${missing.length} CRL(s) absent)`, () => expectAgreement(c, run(c, 'if-available')));
    }
  }

  it('refuses DSA paths by name (4.1.4-4.1.6)', () => {
    for (const id of DSA_CASES) {
      const r = run(PKITS_CASES.find((c) => c.id === id)!, 'if-available');
      expect(r.trusted).toBe(false);
      expect(r.failures.length).toBeGreaterThan(0);
      expect(r.failures.every((f) => f.endsWith(': DSA signatures are not supported')), r.failures.join('\n')).toBe(true);
    }
  });

  const byName = (name: string): PkitsCase => PKITS_CASES.find((c) => c.name === name)!;

  it('names each failure with the certificates involved', () => {
    expect(run(byName('4.6.5'), 'require').failures).toEqual([`certificate CN=pathLenConstraint0 subCA,${O}: pathLenConstraint 0 of CN=pathLenConstraint0 CA,${O} exceeded`]);
    expect(run(byName('4.7.1'), 'require').failures).toEqual([`issuer CN=keyUsage Critical keyCertSign False CA,${O} has a keyUsage without keyCertSign`]);
    expect(run(byName('4.16.2'), 'require').failures).toEqual([`certificate CN=Invalid Unknown Critical Certificate Extension EE Cert Test2,${O}: unknown critical extension 2.16.840.1.101.2.1.12.2`]);
  });

  it('names a revocation with its date and reason, and where the CRL was found (4.4.3)', () => {
    const r = run(byName('4.4.3'), 'require');
    expect(r.failures).toEqual([`CN=Invalid Revoked EE Certificate Test3,${O} is revoked since 2010-01-01T08:30:01.000Z (keyCompromise)`]);
    expect(r.revocation).toEqual([
      { certificate: `CN=Invalid Revoked EE Certificate Test3,${O}`, status: 'revoked', source: 'crl', foundIn: 'signature', revokedAt: '2010-01-01T08:30:01.000Z', reason: 'keyCompromise', checkedAt: '2010-01-01T08:30:00.000Z', problems: [] },
      { certificate: `CN=Good CA,${O}`, status: 'good', source: 'crl', foundIn: 'signature', revokedAt: null, reason: null, checkedAt: '2010-01-01T08:30:00.000Z', problems: [] },
    ]);
  });

  it('says why a status cannot be determined: no CRL (4.4.1), an out-of-date one (4.4.11), one of another scope (4.14.3)', () => {
    expect(run(byName('4.4.1'), 'require').failures).toEqual([
      `the revocation status of CN=Invalid Missing CRL EE Certificate Test1,${O} cannot be determined (revocation: require): no CRL or OCSP response about it was found`,
    ]);
    expect(run(byName('4.4.11'), 'require').failures).toEqual([
      expect.stringMatching(/cannot be determined \(revocation: require\): a CRL of signature \(thisUpdate 2010-01-01T08:30:00.000Z\) is not used: it expired on 2010-01-02T08:30:00.000Z, before the time judged/),
    ]);
    expect(run(byName('4.14.3'), 'require').failures[0]).toContain("its issuing distribution point is not the certificate's (distribution point 1)");
    // With `if-available` the same paths are trusted: the status is unknown, not a revocation.
    expect(['4.4.1', '4.4.11', '4.14.3'].map((id) => run(byName(id), 'if-available').trusted)).toEqual([true, true, true]);
  });

  it('reports the policies a valid path is good for in the relying party\'s domain, through mappings (4.10.1 subpart 1, 4.8.13 subparts)', () => {
    expect(run(byName('4.10.1 (subpart 1)'), 'require').policies).toEqual([NIST_TEST_POLICY_1]);
    expect(run(byName('4.8.13 (subpart 1)'), 'require').policies).toEqual([NIST_TEST_POLICY_1]);
  });

  it('refuses a mapping to or from anyPolicy by name (4.10.7, 4.10.8)', () => {
    for (const id of ['4.10.7', '4.10.8']) {
      expect(run(byName(id), 'require').failures).toEqual([expect.stringMatching(/: a policy mapping to or from anyPolicy \(RFC 5280 §6\.1\.4 \(a\)\)$/)]);
    }
  });
});
