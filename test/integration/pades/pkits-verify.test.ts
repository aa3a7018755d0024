/**
 * NIST PKITS paths through `localsign verify` (the built bundle), as issue 17 asks: a PDF whose
 * CMS names a PKITS end entity and carries the case's intermediates, the PKITS trust anchor given
 * with --trust. PKITS ships no end-entity keys in the sources this repository copies from
 * (../shared/vectors/pkits/README.md), and path validation needs none: the signature value is not the
 * end entity's, so every signature is reported invalid, and what is checked is `chain`, judged
 * from the certificates alone. The CLI judges at the present time; the PKITS certificates are
 * valid until 2030-12-31, after which these paths are reported expired.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { assertBundle, parseJson, runCliAsync } from '../../helpers/cli';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { makeTmpHome } from '../../helpers/tmp-home';

const DIR = outsideVectors('pkits');
const load = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR!, 'certs', `${name}.crt`)));
const O = 'O=Test Certificates 2011,C=US';

interface Report {
  valid: boolean;
  signatures: { valid: boolean; chain: { trusted: boolean; path: string[]; failures: string[] } }[];
}

let tmp: ReturnType<typeof makeTmpHome>;
let anchorPem: string;

beforeAll(() => {
  if (!DIR) return;
  assertBundle();
  tmp = makeTmpHome('localsign-pkits-');
  anchorPem = join(tmp.home, 'pkits-anchor.pem');
  const b64 = Buffer.from(load('TrustAnchorRootCertificate')).toString('base64').replace(/.{64}/g, '$&\n');
  writeFileSync(anchorPem, `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`);
});
afterAll(() => tmp?.cleanup());

/** A PDF "signed" for `leaf` with `intermediates` in the CMS; the signature value is 256 bytes no key made. */
async function pdfFor(name: string, leaf: string, intermediates: string[]): Promise<string> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([595, 842]);
  const prepared = await preparePades({ pdf: await doc.save({ useObjectStreams: false }), certificateChain: [load(leaf), ...intermediates.map(load)], signingTime: new Date('2026-11-22T10:00:00Z') });
  const file = join(tmp.home, `${name}.pdf`);
  writeFileSync(file, finishPades(prepared, new Uint8Array(256).fill(0x5a)));
  return file;
}

async function chainOf(file: string): Promise<Report['signatures'][number]['chain']> {
  const r = await runCliAsync(['verify', file, '--json', '--trust', anchorPem], { home: tmp.home });
  const report = parseJson<Report>(r);
  expect([r.status, report.valid, report.signatures.length]).toEqual([1, false, 1]);
  return report.signatures[0]!.chain;
}

describe.skipIf(!DIR)(`PKITS paths through localsign verify --json --trust${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  it('4.1.1 Valid Signatures Test1: trusted, the path to the anchor', async () => {
    const chain = await chainOf(await pdfFor('4.1.1', 'ValidCertificatePathTest1EE', ['GoodCACert']));
    expect(chain).toMatchObject({ trusted: true, path: [`CN=Valid EE Certificate Test1,${O}`, `CN=Good CA,${O}`, `CN=Trust Anchor,${O}`], failures: [] });
  });

  it('4.3.10 Valid Rollover from PrintableString to UTF8String Test10: names compared per RFC 5280 §7.1', async () => {
    const chain = await chainOf(await pdfFor('4.3.10', 'ValidRolloverfromPrintableStringtoUTF8StringTest10EE', ['RolloverfromPrintableStringtoUTF8StringCACert']));
    expect([chain.trusted, chain.failures]).toEqual([true, []]);
  });

  it('4.6.5 Invalid pathLenConstraint Test5: not trusted, the constraint named', async () => {
    const chain = await chainOf(await pdfFor('4.6.5', 'InvalidpathLenConstraintTest5EE', ['pathLenConstraint0subCACert', 'pathLenConstraint0CACert']));
    expect(chain.trusted).toBe(false);
    expect(chain.failures).toEqual([`certificate CN=pathLenConstraint0 subCA,${O}: pathLenConstraint 0 of CN=pathLenConstraint0 CA,${O} exceeded`]);
  });

  it('4.13.33 Invalid DNS nameConstraints Test33: not trusted, the excluded subtree named', async () => {
    const chain = await chainOf(await pdfFor('4.13.33', 'InvalidDNSnameConstraintsTest33EE', ['nameConstraintsDNS2CACert']));
    expect(chain.trusted).toBe(false);
    expect(chain.failures).toEqual([
      `certificate CN=Invalid DNS nameConstraints EE Certificate Test33,${O}: subjectAltName dNSName invalidcertificates.gov is within an excluded dNSName subtree of CN=nameConstraints DNS2 CA,${O}`,
    ]);
  });

  it('4.16.2 Invalid Unknown Critical Certificate Extension Test2: not trusted, the extension named', async () => {
    const chain = await chainOf(await pdfFor('4.16.2', 'InvalidUnknownCriticalCertificateExtensionTest2EE', []));
    expect(chain.trusted).toBe(false);
    expect(chain.failures).toEqual([`certificate CN=Invalid Unknown Critical Certificate Extension EE Cert Test2,${O}: unknown critical extension 2.16.840.1.101.2.1.12.2`]);
  });
});
