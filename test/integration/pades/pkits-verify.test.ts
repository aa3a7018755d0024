/**
 * NIST PKITS paths through `localsign verify` (the built bundle): a PDF whose CMS names a PKITS end
 * entity, with the case's intermediates and CRLs in the CMS or in the /DSS
 * (test/helpers/pkits-pdf.ts), the PKITS trust anchor given with --trust. PKITS ships no
 * end-entity keys in the copies ../shared/vectors holds and path validation needs none: every
 * signature is invalid, and what is checked is `chain` and `revocation`. The expected outcome is
 * PKITS's (test/helpers/pkits-cases.ts). One case per kind of revocation and path failure runs
 * here; every case runs in-process in pkits-carriers.test.ts. The CLI judges at the present time;
 * the PKITS certificates and CRLs are valid until 2030-12-31.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBundle, parseJson, runCliAsync } from '../../helpers/cli';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { missingFiles, PKITS_CASES } from '../../helpers/pkits-cases';
import { pkitsFiles, pkitsPdf, type Carrier } from '../../helpers/pkits-pdf';
import { makeTmpHome } from '../../helpers/tmp-home';

const DIR = outsideVectors('pkits-all');
const O = 'O=Test Certificates 2011,C=US';

interface Report {
  valid: boolean;
  signatures: {
    valid: boolean;
    problems: string[];
    chain: { trusted: boolean; path: string[]; failures: string[]; policies: string[] };
    revocation: { certificate: string; status: string; found_in: string | null; reason: string | null; revoked_at: string | null }[];
  }[];
}

let tmp: ReturnType<typeof makeTmpHome>;
let anchorPem: string;

beforeAll(() => {
  if (!DIR) return;
  assertBundle();
  tmp = makeTmpHome('localsign-pkits-');
  anchorPem = join(tmp.home, 'pkits-anchor.pem');
  const b64 = Buffer.from(pkitsFiles(DIR).cert('TrustAnchorRootCertificate')).toString('base64').replace(/.{64}/g, '$&\n');
  writeFileSync(anchorPem, `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`);
});
afterAll(() => tmp?.cleanup());

async function verify(id: string, carrier: Carrier, extra: string[] = []): Promise<Report['signatures'][number]> {
  const c = PKITS_CASES.find((x) => x.name === id)!;
  expect(missingFiles(DIR!, c)).toEqual([]);
  const file = join(tmp.home, `${id}-${carrier}.pdf`);
  writeFileSync(file, await pkitsPdf(pkitsFiles(DIR!), c, carrier));
  const r = await runCliAsync(['verify', file, '--json', '--trust', anchorPem, ...extra], { home: tmp.home });
  const report = parseJson<Report>(r);
  expect([r.status, report.valid, report.signatures.length]).toEqual([1, false, 1]);
  const s = report.signatures[0]!;
  expect(s.chain.trusted, s.chain.failures.join('\n')).toBe(c.valid);
  return s;
}

describe.skipIf(!DIR)(`PKITS paths through localsign verify --json --trust${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  for (const carrier of ['cms', 'dss'] as const) {
    const foundIn = carrier === 'cms' ? 'signature' : 'dss';

    it(`${carrier}: 4.1.1 Valid Signatures Test1: trusted, every status good, the policies named`, async () => {
      const s = await verify('4.1.1', carrier);
      expect(s.chain).toMatchObject({ path: [`CN=Valid EE Certificate Test1,${O}`, `CN=Good CA,${O}`, `CN=Trust Anchor,${O}`], failures: [], policies: ['2.16.840.1.101.3.2.1.48.1'] });
      expect(s.revocation.map((r) => [r.status, r.found_in])).toEqual([['good', foundIn], ['good', foundIn]]);
    });

    it(`${carrier}: 4.4.3 Invalid Revoked EE Test3: not trusted, the revocation named with its date and reason`, async () => {
      const s = await verify('4.4.3', carrier);
      expect(s.chain.failures).toEqual([`CN=Invalid Revoked EE Certificate Test3,${O} is revoked since 2010-01-01T08:30:01.000Z (keyCompromise)`]);
      expect(s.problems).toContain(`chain: CN=Invalid Revoked EE Certificate Test3,${O} is revoked since 2010-01-01T08:30:01.000Z (keyCompromise)`);
      expect(s.revocation[0]).toMatchObject({ status: 'revoked', found_in: foundIn, reason: 'keyCompromise' });
    });

    it(`${carrier}: 4.4.2 Invalid Revoked CA Test2: a revoked CA, even with revocation only if available`, async () => {
      const s = await verify('4.4.2', carrier, ['--revocation', 'if-available']);
      expect(s.chain.failures).toEqual([`CN=Revoked subCA,${O} is revoked since 2010-01-01T08:30:00.000Z (keyCompromise)`]);
    });

    it(`${carrier}: 4.4.1 Missing CRL Test1: not trusted by default; trusted with --revocation if-available`, async () => {
      const s = await verify('4.4.1', carrier);
      expect(s.chain.failures).toEqual([`the revocation status of CN=Invalid Missing CRL EE Certificate Test1,${O} cannot be determined (revocation: require): no CRL or OCSP response about it was found`]);
      const file = join(tmp.home, `4.4.1-${carrier}.pdf`);
      const lenient = parseJson<Report>(await runCliAsync(['verify', file, '--json', '--trust', anchorPem, '--revocation', 'if-available'], { home: tmp.home }));
      expect(lenient.signatures[0]!.chain).toMatchObject({ trusted: true, failures: [] });
    });

    it(`${carrier}: 4.4.19 Valid Separate Certificate and CRL Keys Test19, 4.14.24 Valid IDP with indirectCRL Test24: a CRL signer outside the path`, async () => {
      await verify('4.4.19', carrier);
      await verify('4.14.24', carrier);
    });

    it(`${carrier}: 4.15.4 Invalid delta-CRL Test4: revoked on the delta CRL`, async () => {
      const s = await verify('4.15.4', carrier);
      expect(s.chain.failures).toEqual([`CN=Invalid deltaCRL EE Certificate Test4,${O} is revoked since 2010-06-01T08:30:00.000Z (keyCompromise)`]);
    });

    it(`${carrier}: 4.10.7 Invalid Mapping From anyPolicy Test7: refused by name`, async () => {
      const s = await verify('4.10.7', carrier);
      expect(s.chain.failures).toEqual([expect.stringMatching(/: a policy mapping to or from anyPolicy \(RFC 5280 §6\.1\.4 \(a\)\)$/)]);
    });
  }
});
