/**
 * Signed PDFs made by other software (EU DSS and the national tools of its plugtests, Adobe
 * Reader, Acrobat, pyHanko, …), gathered from the public test data of esig/dss and pyHanko with
 * the outcome those projects' own tests assert (issue 17, "Done when"). ../shared/vectors/external/
 * README.md (outside data, never in this repository) says where each file came from, under which licence, and which test line each fact
 * below is taken from.
 *
 * Each fact is its own test, run through `localsign verify --json` (the built bundle) with no
 * trust anchors, or with the anchor the source test itself configures. FACTS is the table of
 * expected facts: a fact marked `dependsOn` rests on work under way in issue 17 (change analysis,
 * field binding, CMS reading, the level) and fails until that lands; its test name says so. No
 * fact is weakened to pass: the mapping from the sources' words to the report is in MAPPING.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { tempDir } from '../../helpers/temp-dir';

const DIR = outsideVectors('external');
const DSS = 'https://github.com/esig/dss/blob/d9473b8efea72fd5754623fa92bb9311f2b005c5';
const DSS_SUITE = `${DSS}/dss-pades/src/test/java/eu/europa/esig/dss/pades/validation/suite`;
const PYHANKO = 'https://github.com/MatthiasValvekens/pyHanko/blob/7db4e6fe97552416944c2be98cdeb918c98d4891';

/**
 * How the sources' words map to the report (so a reader can check each fact's translation):
 * - DSS `isSignatureIntact() && isSignatureValid()`, pyHanko `status.intact and status.valid`:
 *   `digest_valid` (the signed bytes hash to the signed digest and the signature value verifies).
 * - DSS `getPdfUndefinedChanges()` empty: `changes_after.level` is not `other`; the other DSS
 *   change lists (extension, signature or form fill, annotation) are our classes
 *   `dss_and_timestamps`, `signing_and_forms`, `annotations`, the highest one present.
 *   pyHanko `ModificationLevel.NONE` / `FORM_FILLING`: `none` / `signing_and_forms`.
 * - DSS `isSignatureByteRangeValid()` false: the signature has a problem naming its /ByteRange.
 * - DSS `isBLevelTechnicallyValid()`: intact and bound to its own field, `digest_valid` with no
 *   /ByteRange problem (a signature wrapped around another dictionary's /Contents is intact but
 *   not technically valid).
 * - pyHanko `coverage == ENTIRE_FILE`: `covers_whole_document`; `bottom_line`: `valid`.
 * - DSS `SignatureLevel.PAdES_BASELINE_B/T/LT`: `level` `B-B`/`B-T`/`B-LT`; `PKCS7_*` and
 *   `PDF_NOT_ETSI`: `level` null (issue 17: null for a CMS that is not detached ETSI).
 * - DSS counts signatures and document timestamps apart: `kind`.
 */
export const MAPPING = 'see the comment above';

interface Signature {
  valid: boolean;
  field: string;
  fields: string[];
  kind: 'signature' | 'document_timestamp';
  sub_filter: string | null;
  digest_valid: boolean;
  covers_whole_document: boolean;
  changes_after: { level: string; changes: string[]; allowed: boolean };
  timestamp: object | null;
  level: string | null;
  problems: string[];
}
interface Report {
  valid: boolean;
  signatures: Signature[];
  problems: string[];
}

/** The work under way in issue 17 a fact rests on: without it the fact fails. */
const CHANGE_ANALYSIS = 'change analysis (modifications.ts: /Info, XMP, /DSS, /DR, structure tree, appearance streams as allowed classes)';
const FIELD_BINDING = 'field binding (validate.ts: the CMS of each dictionary\'s own /Contents, checked over its /ByteRange)';
const SKI_SID = 'cms-check.ts: a SignerIdentifier by subjectKeyIdentifier (RFC 5652 §5.3 [0]), today "expected tag 0x30, got 0x80"';

interface Fact {
  file: string;
  fact: string;
  actual: (r: Report) => unknown;
  expected: unknown;
  source: string;
  dependsOn?: string;
  /** The anchors the source test configures (PEM under ../shared/vectors/external/). */
  trust?: string;
}

const sigs = (r: Report) => r.signatures.filter((s) => s.kind === 'signature');
const tsts = (r: Report) => r.signatures.filter((s) => s.kind === 'document_timestamp');
const byteRangeProblem = (s: Signature) => s.problems.some((p) => p.includes('/ByteRange'));
const technicallyValid = (s: Signature) => s.digest_valid && !byteRangeProblem(s);

/** DSS's defaults for every test of its suite that does not override them. */
const DSS_INTACT = `${DSS}/dss-test/src/test/java/eu/europa/esig/dss/test/AbstractPkiFactoryTestValidation.java#L590-L593`;
const DSS_NO_UNDEFINED = `${DSS_SUITE}/AbstractPAdESTestValidation.java#L106`;
const DSS_TST_NO_UNDEFINED = `${DSS_SUITE}/AbstractPAdESTestValidation.java#L117`;
const DSS_SUBFILTER = `${DSS_SUITE}/AbstractPAdESTestValidation.java#L125`;
const DSS_FIELDS = `${DSS_SUITE}/AbstractPAdESTestValidation.java#L102`;

/** DSS's default facts for a file whose test keeps them: each signature intact, none changed in an undefined way. */
function dssDefaults(file: string, o: { intact?: boolean; undefinedChanges?: string; trust?: string } = {}): Fact[] {
  const facts: Fact[] = [
    { file, fact: 'at least one signature, each with a field name and a /SubFilter', actual: (r) => sigs(r).length > 0 && sigs(r).every((s) => s.fields.length > 0 && s.sub_filter !== null), expected: true, source: `${DSS_FIELDS} ${DSS_SUBFILTER}`, trust: o.trust },
    { file, fact: 'every signature intact (digest valid)', actual: (r) => sigs(r).map((s) => s.digest_valid), expected: sigs0(file).map(() => true), source: DSS_INTACT, trust: o.trust },
    { file, fact: 'no signature changed in an undefined way (not "other")', actual: (r) => sigs(r).map((s) => s.changes_after.level === 'other'), expected: sigs0(file).map(() => false), source: DSS_NO_UNDEFINED, dependsOn: o.undefinedChanges, trust: o.trust },
  ];
  return facts;
}

/** Signature counts the sources assert, used to shape the per-signature expectations above. */
const COUNTS: Record<string, number> = {
  'dss-pdf-signed-original.pdf': 1, 'dss-pades-signed-annot-added.pdf': 1, 'dss-pkcs7.pdf': 1, 'dss-pkcs7-no-message-digest.pdf': 1,
  'dss-signature-referenced-from-multiple-fields.pdf': 1, 'dss-pades-spoofing-replaced-reason.pdf': 1, 'dss-pdf-structtreeroot-changes.pdf': 2,
  'dss-doc-firmado.pdf': 1, 'dss-doc-firmado-LT.pdf': 1, 'dss-Signature-P-PK7-2.pdf': 1, 'dss-DSS-1683.pdf': 1, 'dss-hello_signed_INCSAVE_signed.pdf': 2,
  'dss-timestamped_and_signed.pdf': 1, 'dss-Signature-P-HU_MIC-1.pdf': 1, 'dss-hide.pdf': 1, 'dss-muestra-firmado-firmado.pdf': 2, 'dss-pdf-signed-added-page.pdf': 1,
};
function sigs0(file: string): number[] {
  return Array.from({ length: COUNTS[file] ?? 1 }, (_, i) => i);
}

const ANCHOR_1469 = 'dss-1469-trust-anchor.pem';

export const FACTS: Fact[] = [
  // DSS: pdf-signed-original.pdf, PAdESSimpleValidationTest (all defaults).
  ...dssDefaults('dss-pdf-signed-original.pdf'),
  // DSS: the same file with bytes removed, PAdESSimpleCorruptedTest.
  { file: 'dss-pdf-signed-corrupted.pdf', fact: 'signature not intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: false, source: `${DSS_SUITE}/PAdESSimpleCorruptedTest.java#L43` },
  { file: 'dss-pdf-signed-corrupted.pdf', fact: 'its /ByteRange is not valid', actual: (r) => byteRangeProblem(sigs(r)[0]!), expected: true, source: `${DSS_SUITE}/PAdESSimpleCorruptedTest.java#L50` },
  // DSS: a page added after signing, PAdESWithAddedPageTest.
  { file: 'dss-pdf-signed-added-page.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: DSS_INTACT },
  { file: 'dss-pdf-signed-added-page.pdf', fact: 'TOTAL_FAILED / FORMAT_FAILURE for the page added after it: the changes are not allowed', actual: (r) => sigs(r)[0]?.changes_after.allowed, expected: false, source: `${DSS_SUITE}/PAdESWithAddedPageTest.java#L50-L65` },
  // DSS: an annotation added after a B-B signature, PAdESLevelBWithAnnotAddedTest.
  { file: 'dss-pades-signed-annot-added.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: DSS_INTACT },
  { file: 'dss-pades-signed-annot-added.pdf', fact: 'annotation changes, no undefined ones: class "annotations"', actual: (r) => sigs(r)[0]?.changes_after.level, expected: 'annotations', source: `${DSS_SUITE}/PAdESLevelBWithAnnotAddedTest.java#L51-L54`, dependsOn: CHANGE_ANALYSIS },
  // DSS: Acrobat 11 adbe.pkcs7.detached with a signature timestamp, PdfPkcs7Test.
  { file: 'dss-pkcs7.pdf', fact: 'one signature', actual: (r) => sigs(r).length, expected: 1, source: `${DSS_SUITE}/PdfPkcs7Test.java#L50` },
  { file: 'dss-pkcs7.pdf', fact: 'PKCS7 form: /SubFilter adbe.pkcs7.detached', actual: (r) => sigs(r)[0]?.sub_filter, expected: 'adbe.pkcs7.detached', source: `${DSS_SUITE}/PdfPkcs7Test.java#L52` },
  { file: 'dss-pkcs7.pdf', fact: 'level PKCS7_T: no PAdES level', actual: (r) => sigs(r)[0]?.level, expected: null, source: `${DSS_SUITE}/PdfPkcs7Test.java#L58` },
  { file: 'dss-pkcs7.pdf', fact: 'one signature timestamp', actual: (r) => sigs(r)[0]?.timestamp !== null, expected: true, source: `${DSS_SUITE}/PdfPkcs7Test.java#L79` },
  ...dssDefaults('dss-pkcs7.pdf').slice(1),
  // DSS: adbe.pkcs7.detached whose digest is the content's (no message-digest attribute), PdfPkcs7SubFilterValidAndInvalidTest.
  { file: 'dss-pkcs7-no-message-digest.pdf', fact: '/SubFilter adbe.pkcs7.detached', actual: (r) => sigs(r)[0]?.sub_filter, expected: 'adbe.pkcs7.detached', source: `${DSS_SUITE}/PdfPkcs7SubFilterValidAndInvalidTest.java#L50` },
  { file: 'dss-pkcs7-no-message-digest.pdf', fact: 'PDF_NOT_ETSI: no PAdES level', actual: (r) => sigs(r)[0]?.level, expected: null, source: `${DSS_SUITE}/PdfPkcs7SubFilterValidAndInvalidTest.java#L55` },
  { file: 'dss-pkcs7-no-message-digest.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: DSS_INTACT },
  // DSS: one signature dictionary, two fields, PAdESMultipleFieldSignatureReferenceTest.
  { file: 'dss-signature-referenced-from-multiple-fields.pdf', fact: 'one signature', actual: (r) => sigs(r).length, expected: 1, source: `${DSS_SUITE}/PAdESMultipleFieldSignatureReferenceTest.java#L45` },
  { file: 'dss-signature-referenced-from-multiple-fields.pdf', fact: 'two field names', actual: (r) => sigs(r)[0]?.fields.length, expected: 2, source: `${DSS_SUITE}/PAdESMultipleFieldSignatureReferenceTest.java#L52` },
  { file: 'dss-signature-referenced-from-multiple-fields.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: DSS_INTACT },
  // DSS: two signatures whose byte ranges overlap, DSS2451Test.
  { file: 'dss-pdf-byterange-overlap.pdf', fact: 'one signature technically valid, one failed (FORMAT_FAILURE)', actual: (r) => sigs(r).map(technicallyValid).sort(), expected: [false, true], source: `${DSS_SUITE}/DSS2451Test.java#L56-L75` },
  { file: 'dss-pdf-byterange-overlap.pdf', fact: 'one valid /ByteRange, one invalid', actual: (r) => sigs(r).map(byteRangeProblem).sort(), expected: [false, true], source: `${DSS_SUITE}/DSS2451Test.java#L97-L98` },
  { file: 'dss-pdf-byterange-overlap.pdf', fact: 'no undefined changes', actual: (r) => sigs(r).map((s) => s.changes_after.level === 'other'), expected: [false, false], source: `${DSS_SUITE}/DSS2451Test.java#L95` },
  // DSS: the /Reason of the signature dictionary replaced after signing, PAdESSpoofingAttackReplacementTest.
  { file: 'dss-pades-spoofing-replaced-reason.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: DSS_INTACT },
  { file: 'dss-pades-spoofing-replaced-reason.pdf', fact: 'an undefined change: class "other"', actual: (r) => sigs(r)[0]?.changes_after.level, expected: 'other', source: `${DSS_SUITE}/PAdESSpoofingAttackReplacementTest.java#L58` },
  { file: 'dss-pades-spoofing-replaced-reason.pdf', fact: 'the undefined change names /Reason', actual: (r) => sigs(r)[0]?.changes_after.changes.some((c) => c.includes('Reason')), expected: true, source: `${DSS_SUITE}/PAdESSpoofingAttackReplacementTest.java#L60`, dependsOn: CHANGE_ANALYSIS },
  // DSS: two adbe.pkcs7.detached signatures, /StructTreeRoot updated by the second, PdfPkcs7StructTreeRootObjectModificationsTest.
  { file: 'dss-pdf-structtreeroot-changes.pdf', fact: 'two signatures, both intact', actual: (r) => sigs(r).map((s) => s.digest_valid), expected: [true, true], source: `${DSS_INTACT} ${DSS_SUITE}/PdfPkcs7StructTreeRootObjectModificationsTest.java#L61-L62` },
  { file: 'dss-pdf-structtreeroot-changes.pdf', fact: 'first: signature/form-fill and extension changes, no annotation or undefined ones: class "signing_and_forms"', actual: (r) => sigs(r)[0]?.changes_after.level, expected: 'signing_and_forms', source: `${DSS_SUITE}/PdfPkcs7StructTreeRootObjectModificationsTest.java#L47-L52`, dependsOn: CHANGE_ANALYSIS },
  { file: 'dss-pdf-structtreeroot-changes.pdf', fact: 'second: no changes', actual: (r) => sigs(r)[1]?.changes_after.level, expected: 'none', source: `${DSS_SUITE}/PdfPkcs7StructTreeRootObjectModificationsTest.java#L56-L58` },
  // DSS: Costa Rica's national tool (FPDF, then a document timestamp), DSS1469Test, with its trust anchor.
  { file: 'dss-doc-firmado.pdf', trust: ANCHOR_1469, fact: 'level PAdES_BASELINE_T ("not LTA, missing certs") with the Costa Rica root trusted', actual: (r) => sigs(r)[0]?.level, expected: 'B-T', source: `${DSS_SUITE}/dss1469/DSS1469Test.java#L61`, dependsOn: 'level (validate.ts): B-LT and B-LTA claimed where DSS finds certificates missing from the DSS' },
  ...dssDefaults('dss-doc-firmado.pdf', { trust: ANCHOR_1469, undefinedChanges: CHANGE_ANALYSIS }).slice(1),
  { file: 'dss-doc-firmado.pdf', trust: ANCHOR_1469, fact: 'the document timestamp: no undefined changes', actual: (r) => tsts(r).map((t) => t.changes_after.level === 'other'), expected: [false], source: DSS_TST_NO_UNDEFINED },
  // DSS: the same tool's LT signature, DSS1469LTTest.
  { file: 'dss-doc-firmado-LT.pdf', trust: ANCHOR_1469, fact: 'level PAdES_BASELINE_LT with the Costa Rica root trusted', actual: (r) => sigs(r)[0]?.level, expected: 'B-LT', source: `${DSS_SUITE}/dss1469/DSS1469LTTest.java#L64` },
  { file: 'dss-doc-firmado-LT.pdf', trust: ANCHOR_1469, fact: 'one signature timestamp', actual: (r) => sigs(r)[0]?.timestamp !== null, expected: true, source: `${DSS_SUITE}/dss1469/DSS1469LTTest.java#L74` },
  ...dssDefaults('dss-doc-firmado-LT.pdf', { trust: ANCHOR_1469 }).slice(1),
  // DSS: plugtest 2015 PK7 (adbe.pkcs7.detached with a timestamp), DSS2258Test.
  { file: 'dss-Signature-P-PK7-2.pdf', fact: 'level PKCS7_T: no PAdES level', actual: (r) => sigs(r)[0]?.level, expected: null, source: `${DSS_SUITE}/DSS2258Test.java#L118` },
  ...dssDefaults('dss-Signature-P-PK7-2.pdf').slice(1),
  // DSS: NetLock Signassist (Hungary), SHA-1 content digest, DSS1683Test.
  { file: 'dss-DSS-1683.pdf', fact: 'one signature', actual: (r) => sigs(r).length, expected: 1, source: `${DSS_SUITE}/DSS1683Test.java#L95` },
  { file: 'dss-DSS-1683.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: `${DSS_SUITE}/DSS1683Test.java#L59 ${DSS_INTACT}` },
  // DSS: a /ByteRange that does not match the file, SIWATest.
  { file: 'dss-siwa.pdf', fact: 'one signature, not technically valid', actual: (r) => [sigs(r).length, sigs(r).filter(technicallyValid).length], expected: [1, 0], source: `${DSS_SUITE}/SIWATest.java#L44-L57` },
  { file: 'dss-siwa.pdf', fact: 'its /ByteRange is not valid', actual: (r) => byteRangeProblem(sigs(r)[0]!), expected: true, source: `${DSS_SUITE}/SIWATest.java#L65` },
  // DSS: signed twice (Microsoft Print to PDF, then incremental saves), DSS917Test.
  { file: 'dss-hello_signed_INCSAVE_signed.pdf', fact: 'two signatures', actual: (r) => sigs(r).length, expected: 2, source: `${DSS_SUITE}/dss917/DSS917Test.java#L45` },
  ...dssDefaults('dss-hello_signed_INCSAVE_signed.pdf').slice(1),
  // DSS: the same file edited so that one signature dictionary is inconsistent with its /ByteRange, DSS917CorruptedTest.
  { file: 'dss-hello_signed_INCSAVE_signed_EDITED.pdf', fact: 'two signatures', actual: (r) => sigs(r).length, expected: 2, source: `${DSS_SUITE}/dss917/DSS917CorruptedTest.java#L51` },
  { file: 'dss-hello_signed_INCSAVE_signed_EDITED.pdf', fact: 'one signature not technically valid, one valid', actual: (r) => sigs(r).map(technicallyValid).sort(), expected: [false, true], source: `${DSS_SUITE}/dss917/DSS917CorruptedTest.java#L57-L58`, dependsOn: FIELD_BINDING },
  { file: 'dss-hello_signed_INCSAVE_signed_EDITED.pdf', fact: 'one /ByteRange inconsistent with its dictionary, one valid', actual: (r) => sigs(r).map(byteRangeProblem).sort(), expected: [false, true], source: `${DSS_SUITE}/dss917/DSS917CorruptedTest.java#L69-L82`, dependsOn: FIELD_BINDING },
  { file: 'dss-hello_signed_INCSAVE_signed_EDITED.pdf', fact: 'no undefined changes', actual: (r) => sigs(r).map((s) => s.changes_after.level === 'other'), expected: [false, false], source: `${DSS_SUITE}/dss917/DSS917CorruptedTest.java#L79` },
  // DSS: a document timestamp, then a B-B signature, TimestampedAndSignedTest.
  { file: 'dss-timestamped_and_signed.pdf', fact: 'the signature is PAdES_BASELINE_B', actual: (r) => sigs(r)[0]?.level, expected: 'B-B', source: `${DSS_SUITE}/TimestampedAndSignedTest.java#L46` },
  { file: 'dss-timestamped_and_signed.pdf', fact: 'the signature has no timestamp of its own', actual: (r) => sigs(r)[0]?.timestamp, expected: null, source: `${DSS_SUITE}/TimestampedAndSignedTest.java#L54` },
  { file: 'dss-timestamped_and_signed.pdf', fact: 'one document timestamp', actual: (r) => tsts(r).length, expected: 1, source: `${DSS_SUITE}/TimestampedAndSignedTest.java#L57-L58` },
  { file: 'dss-timestamped_and_signed.pdf', fact: 'the document timestamp: no undefined changes (a signature added after it)', actual: (r) => tsts(r).map((t) => t.changes_after.level === 'other'), expected: [false], source: DSS_TST_NO_UNDEFINED, dependsOn: CHANGE_ANALYSIS },
  ...dssDefaults('dss-timestamped_and_signed.pdf').slice(1),
  // DSS: plugtest 2015 HU_MIC (Microsec e-Szigno), DSS2116WithPAdESTest (defaults).
  ...dssDefaults('dss-Signature-P-HU_MIC-1.pdf'),
  // DSS: a document whose references loop (Bullzip), PAdESInfiniteLoopTest: validation ends within 3 s with a report.
  { file: 'dss-pades_infinite_loop.pdf', fact: 'a report within 3 s', actual: (r) => Array.isArray(r.signatures) && Array.isArray(r.problems), expected: true, source: `${DSS_SUITE}/PAdESInfiniteLoopTest.java#L40-L46` },
  // DSS: the "hide" shadow attack (PyFPDF, then a later update), DSS2236HideTest.
  { file: 'dss-hide.pdf', fact: 'signature intact', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: DSS_INTACT },
  { file: 'dss-hide.pdf', fact: 'object modifications and undefined changes: class "other"', actual: (r) => sigs(r)[0]?.changes_after.level, expected: 'other', source: `${DSS}/dss-pades/src/test/java/eu/europa/esig/dss/pades/validation/dss2236/DSS2236HideTest.java#L61-L64` },
  // DSS: signed, timestamped, signed and timestamped again (Spain), DSS2574Test.
  { file: 'dss-muestra-firmado-firmado.pdf', fact: 'two signatures, both intact', actual: (r) => sigs(r).map((s) => s.digest_valid), expected: [true, true], source: DSS_INTACT },
  { file: 'dss-muestra-firmado-firmado.pdf', fact: 'no signature changed in an undefined way', actual: (r) => sigs(r).map((s) => s.changes_after.level === 'other'), expected: [false, false], source: `${DSS}/dss-pades/src/test/java/eu/europa/esig/dss/pades/validation/dss2236/DSS2574Test.java#L38 ${DSS_NO_UNDEFINED}`, dependsOn: CHANGE_ANALYSIS },
  { file: 'dss-muestra-firmado-firmado.pdf', fact: 'no document timestamp changed in an undefined way', actual: (r) => tsts(r).map((t) => t.changes_after.level === 'other'), expected: [false, false], source: DSS_TST_NO_UNDEFINED, dependsOn: CHANGE_ANALYSIS },

  // pyHanko: Adobe Reader signing twice (object streams, XMP updates), test_double_sig_adobe_reader.
  ...['pyhanko-minimal-two-fields-signed-twice.pdf', 'pyhanko-minimal-signed-twice-second-created.pdf', 'pyhanko-minimal-signed-twice-both-created.pdf'].flatMap((file): Fact[] => [
    { file, fact: 'two signatures, both intact and valid', actual: (r) => sigs(r).map((s) => s.digest_valid), expected: [true, true], source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L333-L340` },
    { file, fact: 'the first covers its revision, not the file (ENTIRE_REVISION)', actual: (r) => sigs(r)[0]?.covers_whole_document, expected: false, source: `${PYHANKO}/internal/common-test-utils/src/pyhanko_testing_commons/test_utils/signing_commons.py#L263-L265` },
    { file, fact: 'the first: modification level FORM_FILLING', actual: (r) => sigs(r)[0]?.changes_after.level, expected: 'signing_and_forms', source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L336`, dependsOn: CHANGE_ANALYSIS },
    { file, fact: 'the first: DocMDP ok', actual: (r) => sigs(r)[0]?.changes_after.allowed, expected: true, source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L337`, dependsOn: CHANGE_ANALYSIS },
    { file, fact: 'the second covers the file with no modification (ENTIRE_FILE, NONE)', actual: (r) => [sigs(r)[1]?.covers_whole_document, sigs(r)[1]?.changes_after.level], expected: [true, 'none'], source: `${PYHANKO}/internal/common-test-utils/src/pyhanko_testing_commons/test_utils/signing_commons.py#L260-L262` },
  ]),
  { file: 'pyhanko-minimal-signed-twice-no-sig-type.pdf', fact: 'the first signature is field Sig1, modification level FORM_FILLING', actual: (r) => [sigs(r)[0]?.field, sigs(r)[0]?.changes_after.level], expected: ['Sig1', 'signing_and_forms'], source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L2799-L2808`, dependsOn: CHANGE_ANALYSIS },
  // pyHanko: coverage anomalies, test_anomalous_coverage (intact and valid, not the whole file, bottom line false).
  ...[['pyhanko-tail-uncovered.pdf', undefined], ['pyhanko-signature-gap-too-big.pdf', FIELD_BINDING], ['pyhanko-one-byterange.pdf', FIELD_BINDING], ['pyhanko-weird-byterange.pdf', FIELD_BINDING]].flatMap(([file, dependsOn]): Fact[] => [
    { file: file!, fact: 'intact and valid', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L2252-L2253`, dependsOn },
    { file: file!, fact: 'coverage not the whole file, bottom line false', actual: (r) => [sigs(r)[0]?.covers_whole_document, sigs(r)[0]?.valid, r.valid], expected: [false, false, false], source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L2255-L2256` },
  ]),
  // pyHanko: an ESS signing-certificate (v1) attribute, test_old_style_signing_cert_attr_ok.
  { file: 'pyhanko-pades-with-old-style-signing-cert-attr.pdf', fact: 'field Sig1, intact and valid, the whole file, no modification', actual: (r) => [sigs(r)[0]?.field, sigs(r)[0]?.digest_valid, sigs(r)[0]?.covers_whole_document, sigs(r)[0]?.changes_after.level], expected: ['Sig1', true, true, 'none'], source: `${PYHANKO}/pkgs/pyhanko/tests/test_cms.py#L1174-L1175` },
  // pyHanko: a SignerInfo identifying its signer by subjectKeyIdentifier, test_verify_sig_with_ski_sid.
  { file: 'pyhanko-sig-with-ski-sid.pdf', fact: 'field Sig1, the whole file, no modification', actual: (r) => [sigs(r)[0]?.field, sigs(r)[0]?.covers_whole_document, sigs(r)[0]?.changes_after.level], expected: ['Sig1', true, 'none'], source: `${PYHANKO}/pkgs/pyhanko/tests/test_cms.py#L1279-L1280` },
  { file: 'pyhanko-sig-with-ski-sid.pdf', fact: 'intact and valid', actual: (r) => sigs(r)[0]?.digest_valid, expected: true, source: `${PYHANKO}/pkgs/pyhanko/tests/test_cms.py#L1280`, dependsOn: SKI_SID },
  // pyHanko: a certification signature with indirect references in its /Reference dictionary, test_indir_ref_in_sigref_dict.
  { file: 'pyhanko-certified-with-indirect-refs-in-dir.pdf', fact: 'intact and valid, the whole file, no modification', actual: (r) => [sigs(r)[0]?.digest_valid, sigs(r)[0]?.covers_whole_document, sigs(r)[0]?.changes_after.level], expected: [true, true, 'none'], source: `${PYHANKO}/pkgs/pyhanko/tests/test_diff_analysis.py#L2065-L2067` },
];

let home: string;
const reports = new Map<string, { report: Report; ms: number }>();

beforeAll(async () => {
  if (!DIR) return;
  home = tempDir('localsign-external-');
  const runs = [...new Set(FACTS.map((f) => `${f.file}\u0000${f.trust ?? ''}`))];
  // Two at a time: each run is a CLI process and a PDF worker process.
  for (let i = 0; i < runs.length; i += 2) {
    await Promise.all(runs.slice(i, i + 2).map(async (key) => {
      const [file, trust] = key.split('\u0000') as [string, string];
      const started = Date.now();
      const r = await runCliAsync(['verify', join(DIR, file), '--json', ...(trust ? ['--trust', join(DIR, trust)] : [])], { home });
      reports.set(key, { report: parseJson<Report>(r), ms: Date.now() - started });
    }));
  }
}, 300_000);
afterAll(() => home && rmSync(home, { recursive: true, force: true }));

describe.skipIf(!DIR)(`signed PDFs made by other software: the facts their projects assert (../shared/vectors/external)${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  it('holds at least 20 files', () => {
    expect(new Set(FACTS.map((f) => f.file)).size).toBeGreaterThanOrEqual(20);
  });

  for (const f of FACTS) {
    it(`${f.file}: ${f.fact}${f.dependsOn ? ` [depends on ${f.dependsOn}]` : ''}`, () => {
      const run = reports.get(`${f.file}\u0000${f.trust ?? ''}`)!;
      expect(f.actual(run.report), `${f.source}\n${JSON.stringify(run.report.signatures.map((s) => ({ field: s.field, kind: s.kind, digest_valid: s.digest_valid, level: s.level, changes: s.changes_after.level, problems: s.problems })))}`).toEqual(f.expected);
      if (f.file === 'dss-pades_infinite_loop.pdf') expect(run.ms).toBeLessThan(3_000);
    });
  }
});
