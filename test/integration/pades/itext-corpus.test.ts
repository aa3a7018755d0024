/**
 * Signed PDFs from iText's own test suite (itext/itext-java at commit
 * c2b74310be751097d12ad8621a5d2f0255da45ac, AGPL-3.0 test resources, redistributed unchanged in
 * ../shared/vectors/itext/ when added there: the folder's README names each file's path), with the
 * facts iText's tests assert of them (issue 28: signed PDFs from more projects than DSS and
 * pyHanko). Without the folder every test here is skipped with the reason.
 *
 * Each file is named `<iText test class>-<its name>` (`PdfPKCS7Test-extensions-…` for
 * sign/src/test/resources/com/itextpdf/signatures/PdfPKCS7Test/extensions/…). How iText's words
 * map to the report:
 * - PdfPKCS7 `getSignatureMechanismName()` and `verifySignatureIntegrityAndAuthenticity()`:
 *   `algorithms.signature` and `digest_valid`;
 * - SignatureUtil `signatureCoversWholeDocument()`: `covers_whole_document`;
 * - DocumentRevisionsValidator VALID / INVALID: every signature's later changes allowed and no
 *   DocMDP or FieldMDP problem / some signature with one (INDETERMINATE facts are not taken).
 * Where localsign decides otherwise on purpose, the fact says so (`decided`) and asserts our
 * decision with the reason: the reference validators disagree there, or a standard settles it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePdf, type SignatureReport, type ValidationReport } from '../../../src/pades/validate/validate';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { runPdfsig } from '../../helpers/pdf-tools';

const DIR = outsideVectors('itext');
const ITEXT = 'https://github.com/itext/itext-java/blob/c2b74310be751097d12ad8621a5d2f0255da45ac/sign/src/test/java/com/itextpdf/signatures';

const reports = new Map<string, ValidationReport>();
function judge(file: string): ValidationReport {
  let r = reports.get(file);
  if (!r) {
    // iText's test certificates are trusted by nothing here and publish no revocation data: what is judged is the rest.
    r = validatePdf(new Uint8Array(readFileSync(join(DIR!, file))), { trustAnchors: [], now: new Date(), revocation: 'if-available' });
    reports.set(file, r);
  }
  return r;
}

/** DocumentRevisionsValidator's verdict in our words: the later changes of every signature allowed, no DocMDP or FieldMDP problem. */
const revisionsValid = (r: ValidationReport): boolean =>
  r.signatures.every((s) => s.docMdp.allowed && !s.problems.some((p) => /FieldMDP|certif|field lock/.test(p)));

const one = (r: ValidationReport): SignatureReport => r.signatures[0]!;

/** PdfPKCS7Test / PdfPKCS7ManuallyPortedTest verifyIsoExtensionExample: the mechanism and "integrity and authenticity". */
const ALGORITHMS: [string, string, string, string][] = [
  ['sample-ed25519-sha512.pdf', 'Ed25519', 'Ed25519', 'PdfPKCS7ManuallyPortedTest.java#L35-L38'],
  ['sample-ed448-shake256.pdf', 'Ed448', 'Ed448', 'PdfPKCS7ManuallyPortedTest.java#L61-L63'],
  ['sample-nistp256-sha3_256.pdf', 'SHA3-256withECDSA', 'ECDSA with SHA3-256', 'PdfPKCS7ManuallyPortedTest.java#L41-L43'],
  ['sample-brainpoolP384r1-sha3_384.pdf', 'SHA3-384withECDSA', 'ECDSA with SHA3-384', 'PdfPKCS7ManuallyPortedTest.java#L46-L48'],
  ['sample-rsa-sha3_256.pdf', 'SHA3-256withRSA', 'RSA with SHA3-256', 'PdfPKCS7ManuallyPortedTest.java#L51-L53'],
  ['sample-pss-sha3_256.pdf', 'RSASSA-PSS', 'RSASSA-PSS with SHA3-256', 'PdfPKCS7ManuallyPortedTest.java#L56-L58'],
  ['sample-nistp256-sha256.pdf', 'SHA256withECDSA', 'ECDSA with SHA-256', 'PdfPKCS7Test.java#L356-L358'],
  ['sample-brainpoolP384r1-sha384.pdf', 'SHA384withECDSA', 'ECDSA with SHA-384', 'PdfPKCS7Test.java#L361-L363'],
];

/** DocumentRevisionsValidatorIntegrationTest: file, iText's status, and our decision where it differs. */
const REVISIONS: [string, 'VALID' | 'INVALID', string?][] = [
  ['noSignaturesDoc.pdf', 'VALID'],
  ['linearizedDoc.pdf', 'VALID'],
  ['multipleRevisionsDocumentWithoutPermissions.pdf', 'VALID'],
  ['multipleRevisionsDocumentWithPermissions.pdf', 'VALID'],
  ['eolNotIncludedIntoByteRange.pdf', 'VALID'],
  ['twoCertificationSignatures.pdf', 'INVALID'],
  ['signatureNotFound.pdf', 'INVALID'],
  ['differentFieldLockLevels.pdf', 'INVALID'],
  ['fieldLockChildModificationAllowed.pdf', 'VALID'],
  ['fieldLockChildModificationNotAllowed.pdf', 'INVALID'],
  ['fieldLockRootModificationAllowed.pdf', 'VALID'],
  ['fieldLockRootModificationNotAllowed.pdf', 'INVALID'],
  ['fieldLockSequentialExcludeValues.pdf', 'INVALID'],
  ['fieldLockSequentialIncludeValues.pdf', 'INVALID'],
  ['fieldLockKidsRemovedAndAdded.pdf', 'INVALID'],
  ['pageAndParentIndirectReferenceModified.pdf', 'INVALID'],
  ['lockedSignatureFieldModified.pdf', 'INVALID'],
  ['lockedFieldRemoveAddKidsEntry.pdf', 'INVALID'],
  ['removedLockedField.pdf', 'INVALID'],
  ['danglingWidgetAnnotation.pdf', 'INVALID'],
  ['removeAllAnnots.pdf', 'VALID'],
  ['removeFieldAnnots.pdf', 'VALID', 'a form field\'s widgets removed from its page: other, as pyHanko\'s form-field rules have it (a widget is the field on the page, not an annotation P=3 lets go)'],
  ['simpleTaggedDoc.pdf', 'VALID'],
  ['taggedDocAddAndRemoveAnnotations.pdf', 'VALID', 'the removed annotation object itself rewritten: an overwrite no rule explains, as pyHanko judges it, though nothing uses the object any more'],
  ['taggedDocRemoveStructTreeElement.pdf', 'INVALID', 'structure elements removed: signing and forms, as EU DSS classes structure tree changes (its PdfPkcs7StructTreeRootObjectModificationsTest, ../shared/vectors/external): the tree changes no content, iText alone refuses it'],
  ['annotationModificationAllowedTabsChangesTest.pdf', 'VALID'],
  ['annotationModificationNotAllowedTabsChangesTest.pdf', 'INVALID'],
  ['annotationModificationNotAllowedTabsSetToDefaultTest.pdf', 'VALID', 'a page\'s /Tabs set is the annotations\' tab order (ISO 32000-2 Table 31): an annotation change, not allowed by P=2, whatever value it takes'],
  ['outlinesNotModified.pdf', 'VALID'],
  ['outlinesModified.pdf', 'INVALID'],
  ['taggedDocRemoveStructTreeAnnotation.pdf', 'INVALID', 'as taggedDocRemoveStructTreeElement: structure tree changes are signing and forms (EU DSS)'],
  ['taggedDocModifyAnnotation.pdf', 'VALID'],
  ['taggedDocModifyAnnotationAndStructElement.pdf', 'INVALID', 'as taggedDocRemoveStructTreeElement: structure tree changes are signing and forms (EU DSS)'],
  ['taggedDocModifyAnnotationAndStructContent.pdf', 'VALID'],
  ['taggedDocModifyStructElement.pdf', 'INVALID', 'as taggedDocRemoveStructTreeElement: structure tree changes are signing and forms (EU DSS)'],
  ['removeUnnamedField.pdf', 'INVALID'],
  ['fullCompressionModeLevel1.pdf', 'VALID'],
  ['fullCompressionModeLevel2.pdf', 'VALID'],
  ['fullCompressionModeLevel3.pdf', 'VALID'],
  ['pdfVersionAdded.pdf', 'VALID'],
];

describe.skipIf(!DIR)(`signed PDFs of iText's test suite: the facts its tests assert (../shared/vectors/itext)${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  for (const [file, mechanism, ours, source] of ALGORITHMS) {
    it(`${file}: ${mechanism}, intact and authentic (${ITEXT}/${source})`, () => {
      const s = one(judge(`PdfPKCS7Test-extensions-${file}`));
      expect([s.digestValid, s.algorithms.signature], s.problems.join('\n')).toEqual([true, ours]);
    });
  }

  const covers = (name: string) => one(judge(`SignatureUtilTest-${name}.pdf`));
  it(`eolNotIncludedIntoByteRange1 and 3: not the whole document (${ITEXT}/SignatureUtilTest.java#L76-L100)`, () => {
    expect([covers('eolNotIncludedIntoByteRange1').coversWholeDocument, covers('eolNotIncludedIntoByteRange3').coversWholeDocument]).toEqual([false, false]);
  });

  it('eolNotIncludedIntoByteRange2 (one CR LF after the signed %%EOF): iText says the whole document; decided: not, as pdfsig, EU DSS and pyHanko count exactly', async () => {
    const pdfsig = await runPdfsig(join(DIR!, 'SignatureUtilTest-eolNotIncludedIntoByteRange2.pdf'));
    expect(covers('eolNotIncludedIntoByteRange2').coversWholeDocument).toBe(pdfsig.signatures[0]!.coversWholeDocument);
    expect(covers('eolNotIncludedIntoByteRange2').coversWholeDocument).toBe(false);
  });

  it(`twoContentsTest01: iText says not the whole document (${ITEXT}/SignatureUtilTest.java#L203-L209); decided: /Contents twice binds nothing (ISO 32000-2 §7.3.7), named`, () => {
    expect(covers('twoContentsTest01').problems[0]).toMatch(/^the signature is not bound to its field: the signature dictionary in object \d+ has \/Contents 2 times/);
  });

  it(`indirectBytesAre(Not)Covered: iText reads an indirect /Contents (${ITEXT}/SignatureUtilTest.java#L157-L199); decided: refused as pyHanko refuses it, the reason named`, () => {
    for (const name of ['indirectBytesAreCoveredTest01', 'indirectBytesAreCoveredTest02', 'indirectBytesAreNotCoveredTest01']) {
      expect(covers(name).problems).toContainEqual(expect.stringMatching(/^\/Contents is an indirect object \(\d+ 0 R\), not the hex string in the signature dictionary that the \/ByteRange must exclude \(ISO 32000-2 §12\.8\.1\)$/));
    }
  });

  for (const [file, status, decided] of REVISIONS) {
    const label = `${file}: DocumentRevisionsValidator ${status}${decided ? `; decided: ${decided}` : ''} (${ITEXT}/validation/DocumentRevisionsValidatorIntegrationTest.java)`;
    it(label, () => {
      const r = judge(`DocumentRevisionsValidatorIntegrationTest-${file}`);
      const valid = revisionsValid(r);
      const detail = r.signatures.map((s) => `${s.fieldName}: ${s.modifications.level} ${s.modifications.changes.slice(0, 3).join('; ')} ${s.problems.filter((p) => !p.startsWith('chain:')).join('; ')}`).join('\n');
      expect(valid, detail).toBe(decided ? status !== 'VALID' : status === 'VALID');
    });
  }
});
