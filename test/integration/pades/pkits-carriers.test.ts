/**
 * NIST PKITS 4.1-4.16 through the PDF validator (pades/validate/validate.ts), every case in two
 * carriers (test/helpers/pkits-pdf.ts): its CRLs in the CMS `crls` field, and its certificates
 * and CRLs in the document's /DSS added after signing, as B-LT does. Revocation is required (the
 * default), each case's certificate policy inputs set; the expected outcome is PKITS's own
 * (test/helpers/pkits-cases.ts), never what localsign answers. DSA (4.1.4-4.1.6) is left out.
 *
 * A case whose CRLs ../shared/vectors/pkits-all lacks (it holds 123 of PKITS's 173) cannot be run
 * with revocation required: its `require` test is skipped naming the files, and it runs with
 * `if-available`, which still judges every CRL there is. The agreement per section and carrier is
 * printed at the end: `npx vitest run test/integration/pades/pkits-carriers.test.ts`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { validatePdf } from '../../../src/pades/validate/validate';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { DSA_CASES, missingFiles, NIST_TEST_POLICY_1, PKITS_CASES, sectionOf, type PkitsCase } from '../../helpers/pkits-cases';
import { pkitsFiles, pkitsPdf, type Carrier } from '../../helpers/pkits-pdf';

const DIR = outsideVectors('pkits-all');
const AT = new Date('2021-01-01T00:00:00Z');
const CARRIERS: Carrier[] = ['cms', 'dss'];

/** section -> carrier -> [agreeing, run, of them under if-available] */
const tally = new Map<string, Map<string, [number, number, number]>>();

async function judge(c: PkitsCase, carrier: Carrier, revocation: 'require' | 'if-available') {
  const files = pkitsFiles(DIR!);
  const pdf = await pkitsPdf(files, c, carrier);
  const report = validatePdf(pdf, {
    trustAnchors: [files.cert('TrustAnchorRootCertificate')],
    now: AT,
    revocation,
    certificatePolicies: { initialPolicySet: c.initialPolicySet, initialExplicitPolicy: c.explicitPolicy, initialPolicyMappingInhibit: c.policyMappingInhibit, initialAnyPolicyInhibit: c.anyPolicyInhibit },
  });
  expect(report.signatures).toHaveLength(1);
  return report.signatures[0]!;
}

describe.skipIf(!DIR)(`PKITS in a PDF, CRLs in the CMS and in the /DSS${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  afterAll(() => {
    const cell = (carrier: string, [ok, run, ia]: [number, number, number]): string => `${carrier} ${ok}/${run}${ia ? ` (${ia} ia)` : ''}`;
    const lines = ['PKITS agreement (agreeing/run; "ia": run with revocation if-available, CRLs absent from pkits-all):'];
    for (const [section, byCarrier] of tally) {
      lines.push(`  ${section.padEnd(5)} ${[...byCarrier].map(([carrier, counts]) => cell(carrier, counts)).join('   ')}`);
    }
    const total = (carrier: string): [number, number, number] =>
      [...tally.values()].map((m): [number, number, number] => m.get(carrier) ?? [0, 0, 0]).reduce<[number, number, number]>((a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]], [0, 0, 0]);
    lines.push(`  all   ${CARRIERS.map((carrier) => cell(carrier, total(carrier))).join('   ')}`);
    console.log(lines.join('\n'));
  });

  for (const c of PKITS_CASES.filter((x) => !DSA_CASES.has(x.id))) {
    for (const carrier of CARRIERS) {
      const missing = DIR ? missingFiles(DIR, c) : [];
      const revocation = missing.length === 0 ? 'require' : 'if-available';
      const label = `${c.name} ${c.title}, ${carrier}: ${c.valid ? 'trusted' : 'not trusted'}`;
      if (missing.length > 0) it.skip(`${label}, revocation required: skipped, ../shared/vectors/pkits-all lacks ${missing.join(', ')}`, () => {});
      it(`${label}${missing.length > 0 ? ', revocation if-available' : ''}`, async () => {
        const s = await judge(c, carrier, revocation);
        const row = (tally.get(sectionOf(c.id)) ?? tally.set(sectionOf(c.id), new Map()).get(sectionOf(c.id))!);
        const counts = row.get(carrier) ?? [0, 0, 0];
        const agrees = s.chain.trusted === c.valid && (!c.valid || [...s.chain.policies].sort().join() === [...(c.userConstrained ?? [NIST_TEST_POLICY_1])].sort().join());
        row.set(carrier, [counts[0] + (agrees ? 1 : 0), counts[1] + 1, counts[2] + (revocation === 'if-available' ? 1 : 0)]);
        expect(s.chain.trusted, s.chain.failures.join('\n')).toBe(c.valid);
        if (c.valid) expect([...s.chain.policies].sort()).toEqual([...(c.userConstrained ?? [NIST_TEST_POLICY_1])].sort());
        else expect(s.problems.some((p) => p.startsWith('chain: '))).toBe(true);
        // Where the data was found is reported: the CMS is the signature's, the /DSS the document's.
        const used = s.revocation.filter((r) => r.foundIn !== null).map((r) => r.foundIn);
        expect(used.every((f) => f === (carrier === 'dss' ? 'dss' : 'signature'))).toBe(true);
      });
    }
  }
});
