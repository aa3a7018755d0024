/**
 * Every test of NIST PKITS section 4 (4.1-4.16), with the outcome PKITS expects: the case list of
 * PKITS.pdf ("Public Key Interoperability Test Suite, Certification Path Validation", NIST, version
 * 1.0.1, §4), as Google's BoringSSL extracts it from that document with its generate_tests.py into
 * `pki/testdata/nist-pkits/pkits_testcases-inl.h` (google/boringssl at commit
 * a0689af29e8e460f1e5380e0fb74cef1b342e810), transcribed row for row: number, title, whether the
 * path is valid, its certificates (trust anchor "TrustAnchorRootCertificate" left out, end entity
 * last), its CRLs ("TrustAnchorRootCRL" left out), and for the certificate policy tests (4.8-4.12)
 * each subpart's settings (RFC 5280 §6.1.1 inputs) and the user-constrained policy set PKITS
 * expects (absent: NIST-test-policy-1, PKITS's default). BoringSSL's own deviations from PKITS.pdf
 * (it refuses DSA and URI name constraints) are in its test harness, not in this table: nothing
 * here comes from what localsign answers.
 *
 * PKITS is a work of the United States Government, not subject to copyright (17 U.S.C. §105); the
 * table is the document's facts. The certificates and CRLs are in ../shared/vectors/pkits-all/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** PKITS.pdf §3.1: the test policies, under 2.16.840.1.101.3.2.1.48. */
const P1 = '2.16.840.1.101.3.2.1.48.1';
const P2 = '2.16.840.1.101.3.2.1.48.2';
const P3 = '2.16.840.1.101.3.2.1.48.3';
const P6 = '2.16.840.1.101.3.2.1.48.6';
const ANY = '2.5.29.32.0';

export const NIST_TEST_POLICY_1 = P1;
export const ANY_POLICY = ANY;

export interface PkitsSettings {
  /** Cases tested several times with different settings (PKITS.pdf "subpart"). */
  subpart?: number;
  initialPolicySet?: string[];
  explicitPolicy?: boolean;
  policyMappingInhibit?: boolean;
  anyPolicyInhibit?: boolean;
  /** The user-constrained policy set PKITS expects of a valid path; absent: {NIST-test-policy-1}. */
  userConstrained?: string[];
}

export interface PkitsCase extends PkitsSettings {
  id: string;
  /** `id`, with the subpart when there is one: unique. */
  name: string;
  title: string;
  valid: boolean;
  /** Intermediates in PKITS.pdf's order, end entity last (the trust anchor is TrustAnchorRootCertificate). */
  certificates: string[];
  /** The CRLs PKITS.pdf lists besides TrustAnchorRootCRL. */
  crls: string[];
  /** True when the case sets any of the four inputs of RFC 5280 §6.1.1 away from its default. */
  nonDefault: boolean;
}

type Row = [string, string, boolean, string[], string[], PkitsSettings?];

const ROWS: Row[] = [
  ['4.1.1', 'Valid Signatures Test1', true, ['GoodCACert', 'ValidCertificatePathTest1EE'], ['GoodCACRL']],
  ['4.1.2', 'Invalid CA Signature Test2', false, ['BadSignedCACert', 'InvalidCASignatureTest2EE'], ['BadSignedCACRL']],
  ['4.1.3', 'Invalid EE Signature Test3', false, ['GoodCACert', 'InvalidEESignatureTest3EE'], ['GoodCACRL']],
  ['4.1.4', 'Valid DSA Signatures Test4', true, ['DSACACert', 'ValidDSASignaturesTest4EE'], ['DSACACRL']],
  ['4.1.5', 'Valid DSA Parameter Inheritance Test5', true, ['DSACACert', 'DSAParametersInheritedCACert', 'ValidDSAParameterInheritanceTest5EE'], ['DSACACRL', 'DSAParametersInheritedCACRL']],
  ['4.1.6', 'Invalid DSA Signature Test6', false, ['DSACACert', 'InvalidDSASignatureTest6EE'], ['DSACACRL']],
  ['4.2.1', 'Invalid CA notBefore Date Test1', false, ['BadnotBeforeDateCACert', 'InvalidCAnotBeforeDateTest1EE'], ['BadnotBeforeDateCACRL']],
  ['4.2.2', 'Invalid EE notBefore Date Test2', false, ['GoodCACert', 'InvalidEEnotBeforeDateTest2EE'], ['GoodCACRL']],
  ['4.2.3', 'Valid pre2000 UTC notBefore Date Test3', true, ['GoodCACert', 'Validpre2000UTCnotBeforeDateTest3EE'], ['GoodCACRL']],
  ['4.2.4', 'Valid GeneralizedTime notBefore Date Test4', true, ['GoodCACert', 'ValidGeneralizedTimenotBeforeDateTest4EE'], ['GoodCACRL']],
  ['4.2.5', 'Invalid CA notAfter Date Test5', false, ['BadnotAfterDateCACert', 'InvalidCAnotAfterDateTest5EE'], ['BadnotAfterDateCACRL']],
  ['4.2.6', 'Invalid EE notAfter Date Test6', false, ['GoodCACert', 'InvalidEEnotAfterDateTest6EE'], ['GoodCACRL']],
  ['4.2.7', 'Invalid pre2000 UTC EE notAfter Date Test7', false, ['GoodCACert', 'Invalidpre2000UTCEEnotAfterDateTest7EE'], ['GoodCACRL']],
  ['4.2.8', 'Valid GeneralizedTime notAfter Date Test8', true, ['GoodCACert', 'ValidGeneralizedTimenotAfterDateTest8EE'], ['GoodCACRL']],
  ['4.3.1', 'Invalid Name Chaining EE Test1', false, ['GoodCACert', 'InvalidNameChainingTest1EE'], ['GoodCACRL']],
  ['4.3.2', 'Invalid Name Chaining Order Test2', false, ['NameOrderingCACert', 'InvalidNameChainingOrderTest2EE'], ['NameOrderCACRL']],
  ['4.3.3', 'Valid Name Chaining Whitespace Test3', true, ['GoodCACert', 'ValidNameChainingWhitespaceTest3EE'], ['GoodCACRL']],
  ['4.3.4', 'Valid Name Chaining Whitespace Test4', true, ['GoodCACert', 'ValidNameChainingWhitespaceTest4EE'], ['GoodCACRL']],
  ['4.3.5', 'Valid Name Chaining Capitalization Test5', true, ['GoodCACert', 'ValidNameChainingCapitalizationTest5EE'], ['GoodCACRL']],
  ['4.3.6', 'Valid Name Chaining UIDs Test6', true, ['UIDCACert', 'ValidNameUIDsTest6EE'], ['UIDCACRL']],
  ['4.3.7', 'Valid RFC3280 Mandatory Attribute Types Test7', true, ['RFC3280MandatoryAttributeTypesCACert', 'ValidRFC3280MandatoryAttributeTypesTest7EE'], ['RFC3280MandatoryAttributeTypesCACRL']],
  ['4.3.8', 'Valid RFC3280 Optional Attribute Types Test8', true, ['RFC3280OptionalAttributeTypesCACert', 'ValidRFC3280OptionalAttributeTypesTest8EE'], ['RFC3280OptionalAttributeTypesCACRL']],
  ['4.3.9', 'Valid UTF8String Encoded Names Test9', true, ['UTF8StringEncodedNamesCACert', 'ValidUTF8StringEncodedNamesTest9EE'], ['UTF8StringEncodedNamesCACRL']],
  ['4.3.10', 'Valid Rollover from PrintableString to UTF8String Test10', true, ['RolloverfromPrintableStringtoUTF8StringCACert', 'ValidRolloverfromPrintableStringtoUTF8StringTest10EE'], ['RolloverfromPrintableStringtoUTF8StringCACRL']],
  ['4.3.11', 'Valid UTF8String Case Insensitive Match Test11', true, ['UTF8StringCaseInsensitiveMatchCACert', 'ValidUTF8StringCaseInsensitiveMatchTest11EE'], ['UTF8StringCaseInsensitiveMatchCACRL']],
  ['4.4.1', 'Missing CRL Test1', false, ['NoCRLCACert', 'InvalidMissingCRLTest1EE'], []],
  ['4.4.2', 'Invalid Revoked CA Test2', false, ['GoodCACert', 'RevokedsubCACert', 'InvalidRevokedCATest2EE'], ['GoodCACRL', 'RevokedsubCACRL']],
  ['4.4.3', 'Invalid Revoked EE Test3', false, ['GoodCACert', 'InvalidRevokedEETest3EE'], ['GoodCACRL']],
  ['4.4.4', 'Invalid Bad CRL Signature Test4', false, ['BadCRLSignatureCACert', 'InvalidBadCRLSignatureTest4EE'], ['BadCRLSignatureCACRL']],
  ['4.4.5', 'Invalid Bad CRL Issuer Name Test5', false, ['BadCRLIssuerNameCACert', 'InvalidBadCRLIssuerNameTest5EE'], ['BadCRLIssuerNameCACRL']],
  ['4.4.6', 'Invalid Wrong CRL Test6', false, ['WrongCRLCACert', 'InvalidWrongCRLTest6EE'], ['WrongCRLCACRL']],
  ['4.4.7', 'Valid Two CRLs Test7', true, ['TwoCRLsCACert', 'ValidTwoCRLsTest7EE'], ['TwoCRLsCAGoodCRL', 'TwoCRLsCABadCRL']],
  ['4.4.8', 'Invalid Unknown CRL Entry Extension Test8', false, ['UnknownCRLEntryExtensionCACert', 'InvalidUnknownCRLEntryExtensionTest8EE'], ['UnknownCRLEntryExtensionCACRL']],
  ['4.4.9', 'Invalid Unknown CRL Extension Test9', false, ['UnknownCRLExtensionCACert', 'InvalidUnknownCRLExtensionTest9EE'], ['UnknownCRLExtensionCACRL']],
  ['4.4.10', 'Invalid Unknown CRL Extension Test10', false, ['UnknownCRLExtensionCACert', 'InvalidUnknownCRLExtensionTest10EE'], ['UnknownCRLExtensionCACRL']],
  ['4.4.11', 'Invalid Old CRL nextUpdate Test11', false, ['OldCRLnextUpdateCACert', 'InvalidOldCRLnextUpdateTest11EE'], ['OldCRLnextUpdateCACRL']],
  ['4.4.12', 'Invalid pre2000 CRL nextUpdate Test12', false, ['pre2000CRLnextUpdateCACert', 'Invalidpre2000CRLnextUpdateTest12EE'], ['pre2000CRLnextUpdateCACRL']],
  ['4.4.13', 'Valid GeneralizedTime CRL nextUpdate Test13', true, ['GeneralizedTimeCRLnextUpdateCACert', 'ValidGeneralizedTimeCRLnextUpdateTest13EE'], ['GeneralizedTimeCRLnextUpdateCACRL']],
  ['4.4.14', 'Valid Negative Serial Number Test14', true, ['NegativeSerialNumberCACert', 'ValidNegativeSerialNumberTest14EE'], ['NegativeSerialNumberCACRL']],
  ['4.4.15', 'Invalid Negative Serial Number Test15', false, ['NegativeSerialNumberCACert', 'InvalidNegativeSerialNumberTest15EE'], ['NegativeSerialNumberCACRL']],
  ['4.4.16', 'Valid Long Serial Number Test16', true, ['LongSerialNumberCACert', 'ValidLongSerialNumberTest16EE'], ['LongSerialNumberCACRL']],
  ['4.4.17', 'Valid Long Serial Number Test17', true, ['LongSerialNumberCACert', 'ValidLongSerialNumberTest17EE'], ['LongSerialNumberCACRL']],
  ['4.4.18', 'Invalid Long Serial Number Test18', false, ['LongSerialNumberCACert', 'InvalidLongSerialNumberTest18EE'], ['LongSerialNumberCACRL']],
  ['4.4.19', 'Valid Separate Certificate and CRL Keys Test19', true, ['SeparateCertificateandCRLKeysCertificateSigningCACert', 'SeparateCertificateandCRLKeysCRLSigningCert', 'ValidSeparateCertificateandCRLKeysTest19EE'], ['SeparateCertificateandCRLKeysCRL']],
  ['4.4.20', 'Invalid Separate Certificate and CRL Keys Test20', false, ['SeparateCertificateandCRLKeysCertificateSigningCACert', 'SeparateCertificateandCRLKeysCRLSigningCert', 'InvalidSeparateCertificateandCRLKeysTest20EE'], ['SeparateCertificateandCRLKeysCRL']],
  ['4.4.21', 'Invalid Separate Certificate and CRL Keys Test21', false, ['SeparateCertificateandCRLKeysCA2CertificateSigningCACert', 'SeparateCertificateandCRLKeysCA2CRLSigningCert', 'InvalidSeparateCertificateandCRLKeysTest21EE'], ['SeparateCertificateandCRLKeysCA2CRL']],
  ['4.5.1', 'Valid Basic Self-Issued Old With New Test1', true, ['BasicSelfIssuedNewKeyCACert', 'BasicSelfIssuedNewKeyOldWithNewCACert', 'ValidBasicSelfIssuedOldWithNewTest1EE'], ['BasicSelfIssuedNewKeyCACRL']],
  ['4.5.2', 'Invalid Basic Self-Issued Old With New Test2', false, ['BasicSelfIssuedNewKeyCACert', 'BasicSelfIssuedNewKeyOldWithNewCACert', 'InvalidBasicSelfIssuedOldWithNewTest2EE'], ['BasicSelfIssuedNewKeyCACRL']],
  ['4.5.3', 'Valid Basic Self-Issued New With Old Test3', true, ['BasicSelfIssuedOldKeyCACert', 'BasicSelfIssuedOldKeyNewWithOldCACert', 'ValidBasicSelfIssuedNewWithOldTest3EE'], ['BasicSelfIssuedOldKeySelfIssuedCertCRL', 'BasicSelfIssuedOldKeyCACRL']],
  ['4.5.4', 'Valid Basic Self-Issued New With Old Test4', true, ['BasicSelfIssuedOldKeyCACert', 'BasicSelfIssuedOldKeyNewWithOldCACert', 'ValidBasicSelfIssuedNewWithOldTest4EE'], ['BasicSelfIssuedOldKeySelfIssuedCertCRL', 'BasicSelfIssuedOldKeyCACRL']],
  ['4.5.5', 'Invalid Basic Self-Issued New With Old Test5', false, ['BasicSelfIssuedOldKeyCACert', 'BasicSelfIssuedOldKeyNewWithOldCACert', 'InvalidBasicSelfIssuedNewWithOldTest5EE'], ['BasicSelfIssuedOldKeySelfIssuedCertCRL', 'BasicSelfIssuedOldKeyCACRL']],
  ['4.5.6', 'Valid Basic Self-Issued CRL Signing Key Test6', true, ['BasicSelfIssuedCRLSigningKeyCACert', 'BasicSelfIssuedCRLSigningKeyCRLCert', 'ValidBasicSelfIssuedCRLSigningKeyTest6EE'], ['BasicSelfIssuedCRLSigningKeyCRLCertCRL', 'BasicSelfIssuedCRLSigningKeyCACRL']],
  ['4.5.7', 'Invalid Basic Self-Issued CRL Signing Key Test7', false, ['BasicSelfIssuedCRLSigningKeyCACert', 'BasicSelfIssuedCRLSigningKeyCRLCert', 'InvalidBasicSelfIssuedCRLSigningKeyTest7EE'], ['BasicSelfIssuedCRLSigningKeyCRLCertCRL', 'BasicSelfIssuedCRLSigningKeyCACRL']],
  ['4.5.8', 'Invalid Basic Self-Issued CRL Signing Key Test8', false, ['BasicSelfIssuedCRLSigningKeyCACert', 'BasicSelfIssuedCRLSigningKeyCRLCert', 'InvalidBasicSelfIssuedCRLSigningKeyTest8EE'], ['BasicSelfIssuedCRLSigningKeyCRLCertCRL', 'BasicSelfIssuedCRLSigningKeyCACRL']],
  ['4.6.1', 'Invalid Missing basicConstraints Test1', false, ['MissingbasicConstraintsCACert', 'InvalidMissingbasicConstraintsTest1EE'], ['MissingbasicConstraintsCACRL']],
  ['4.6.2', 'Invalid cA False Test2', false, ['basicConstraintsCriticalcAFalseCACert', 'InvalidcAFalseTest2EE'], ['basicConstraintsCriticalcAFalseCACRL']],
  ['4.6.3', 'Invalid cA False Test3', false, ['basicConstraintsNotCriticalcAFalseCACert', 'InvalidcAFalseTest3EE'], ['basicConstraintsNotCriticalcAFalseCACRL']],
  ['4.6.4', 'Valid basicConstraints Not Critical Test4', true, ['basicConstraintsNotCriticalCACert', 'ValidbasicConstraintsNotCriticalTest4EE'], ['basicConstraintsNotCriticalCACRL']],
  ['4.6.5', 'Invalid pathLenConstraint Test5', false, ['pathLenConstraint0CACert', 'pathLenConstraint0subCACert', 'InvalidpathLenConstraintTest5EE'], ['pathLenConstraint0CACRL', 'pathLenConstraint0subCACRL']],
  ['4.6.6', 'Invalid pathLenConstraint Test6', false, ['pathLenConstraint0CACert', 'pathLenConstraint0subCACert', 'InvalidpathLenConstraintTest6EE'], ['pathLenConstraint0CACRL', 'pathLenConstraint0subCACRL']],
  ['4.6.7', 'Valid pathLenConstraint Test7', true, ['pathLenConstraint0CACert', 'ValidpathLenConstraintTest7EE'], ['pathLenConstraint0CACRL']],
  ['4.6.8', 'Valid pathLenConstraint Test8', true, ['pathLenConstraint0CACert', 'ValidpathLenConstraintTest8EE'], ['pathLenConstraint0CACRL']],
  ['4.6.9', 'Invalid pathLenConstraint Test9', false, ['pathLenConstraint6CACert', 'pathLenConstraint6subCA0Cert', 'pathLenConstraint6subsubCA00Cert', 'InvalidpathLenConstraintTest9EE'], ['pathLenConstraint6CACRL', 'pathLenConstraint6subCA0CRL', 'pathLenConstraint6subsubCA00CRL']],
  ['4.6.10', 'Invalid pathLenConstraint Test10', false, ['pathLenConstraint6CACert', 'pathLenConstraint6subCA0Cert', 'pathLenConstraint6subsubCA00Cert', 'InvalidpathLenConstraintTest10EE'], ['pathLenConstraint6CACRL', 'pathLenConstraint6subCA0CRL', 'pathLenConstraint6subsubCA00CRL']],
  ['4.6.11', 'Invalid pathLenConstraint Test11', false, ['pathLenConstraint6CACert', 'pathLenConstraint6subCA1Cert', 'pathLenConstraint6subsubCA11Cert', 'pathLenConstraint6subsubsubCA11XCert', 'InvalidpathLenConstraintTest11EE'], ['pathLenConstraint6CACRL', 'pathLenConstraint6subCA1CRL', 'pathLenConstraint6subsubCA11CRL', 'pathLenConstraint6subsubsubCA11XCRL']],
  ['4.6.12', 'Invalid pathLenConstraint Test12', false, ['pathLenConstraint6CACert', 'pathLenConstraint6subCA1Cert', 'pathLenConstraint6subsubCA11Cert', 'pathLenConstraint6subsubsubCA11XCert', 'InvalidpathLenConstraintTest12EE'], ['pathLenConstraint6CACRL', 'pathLenConstraint6subCA1CRL', 'pathLenConstraint6subsubCA11CRL', 'pathLenConstraint6subsubsubCA11XCRL']],
  ['4.6.13', 'Valid pathLenConstraint Test13', true, ['pathLenConstraint6CACert', 'pathLenConstraint6subCA4Cert', 'pathLenConstraint6subsubCA41Cert', 'pathLenConstraint6subsubsubCA41XCert', 'ValidpathLenConstraintTest13EE'], ['pathLenConstraint6CACRL', 'pathLenConstraint6subCA4CRL', 'pathLenConstraint6subsubCA41CRL', 'pathLenConstraint6subsubsubCA41XCRL']],
  ['4.6.14', 'Valid pathLenConstraint Test14', true, ['pathLenConstraint6CACert', 'pathLenConstraint6subCA4Cert', 'pathLenConstraint6subsubCA41Cert', 'pathLenConstraint6subsubsubCA41XCert', 'ValidpathLenConstraintTest14EE'], ['pathLenConstraint6CACRL', 'pathLenConstraint6subCA4CRL', 'pathLenConstraint6subsubCA41CRL', 'pathLenConstraint6subsubsubCA41XCRL']],
  ['4.6.15', 'Valid Self-Issued pathLenConstraint Test15', true, ['pathLenConstraint0CACert', 'pathLenConstraint0SelfIssuedCACert', 'ValidSelfIssuedpathLenConstraintTest15EE'], ['pathLenConstraint0CACRL']],
  ['4.6.16', 'Invalid Self-Issued pathLenConstraint Test16', false, ['pathLenConstraint0CACert', 'pathLenConstraint0SelfIssuedCACert', 'pathLenConstraint0subCA2Cert', 'InvalidSelfIssuedpathLenConstraintTest16EE'], ['pathLenConstraint0CACRL', 'pathLenConstraint0subCA2CRL']],
  ['4.6.17', 'Valid Self-Issued pathLenConstraint Test17', true, ['pathLenConstraint1CACert', 'pathLenConstraint1SelfIssuedCACert', 'pathLenConstraint1subCACert', 'pathLenConstraint1SelfIssuedsubCACert', 'ValidSelfIssuedpathLenConstraintTest17EE'], ['pathLenConstraint1CACRL', 'pathLenConstraint1subCACRL']],
  ['4.7.1', 'Invalid keyUsage Critical keyCertSign False Test1', false, ['keyUsageCriticalkeyCertSignFalseCACert', 'InvalidkeyUsageCriticalkeyCertSignFalseTest1EE'], ['keyUsageCriticalkeyCertSignFalseCACRL']],
  ['4.7.2', 'Invalid keyUsage Not Critical keyCertSign False Test2', false, ['keyUsageNotCriticalkeyCertSignFalseCACert', 'InvalidkeyUsageNotCriticalkeyCertSignFalseTest2EE'], ['keyUsageNotCriticalkeyCertSignFalseCACRL']],
  ['4.7.3', 'Valid keyUsage Not Critical Test3', true, ['keyUsageNotCriticalCACert', 'ValidkeyUsageNotCriticalTest3EE'], ['keyUsageNotCriticalCACRL']],
  ['4.7.4', 'Invalid keyUsage Critical cRLSign False Test4', false, ['keyUsageCriticalcRLSignFalseCACert', 'InvalidkeyUsageCriticalcRLSignFalseTest4EE'], ['keyUsageCriticalcRLSignFalseCACRL']],
  ['4.7.5', 'Invalid keyUsage Not Critical cRLSign False Test5', false, ['keyUsageNotCriticalcRLSignFalseCACert', 'InvalidkeyUsageNotCriticalcRLSignFalseTest5EE'], ['keyUsageNotCriticalcRLSignFalseCACRL']],
  ['4.8.1', 'All Certificates Same Policy Test1', true, ['GoodCACert', 'ValidCertificatePathTest1EE'], ['GoodCACRL'], { subpart: 1, explicitPolicy: true }],
  ['4.8.1', 'All Certificates Same Policy Test1', true, ['GoodCACert', 'ValidCertificatePathTest1EE'], ['GoodCACRL'], { subpart: 2, initialPolicySet: [P1], explicitPolicy: true }],
  ['4.8.1', 'All Certificates Same Policy Test1', false, ['GoodCACert', 'ValidCertificatePathTest1EE'], ['GoodCACRL'], { subpart: 3, initialPolicySet: [P2], explicitPolicy: true, userConstrained: [] }],
  ['4.8.1', 'All Certificates Same Policy Test1', true, ['GoodCACert', 'ValidCertificatePathTest1EE'], ['GoodCACRL'], { subpart: 4, initialPolicySet: [P1, P2], explicitPolicy: true }],
  ['4.8.2', 'All Certificates No Policies Test2', true, ['NoPoliciesCACert', 'AllCertificatesNoPoliciesTest2EE'], ['NoPoliciesCACRL'], { subpart: 1, userConstrained: [] }],
  ['4.8.2', 'All Certificates No Policies Test2', false, ['NoPoliciesCACert', 'AllCertificatesNoPoliciesTest2EE'], ['NoPoliciesCACRL'], { subpart: 2, explicitPolicy: true, userConstrained: [] }],
  ['4.8.3', 'Different Policies Test3', true, ['GoodCACert', 'PoliciesP2subCACert', 'DifferentPoliciesTest3EE'], ['GoodCACRL', 'PoliciesP2subCACRL'], { subpart: 1, userConstrained: [] }],
  ['4.8.3', 'Different Policies Test3', false, ['GoodCACert', 'PoliciesP2subCACert', 'DifferentPoliciesTest3EE'], ['GoodCACRL', 'PoliciesP2subCACRL'], { subpart: 2, explicitPolicy: true, userConstrained: [] }],
  ['4.8.3', 'Different Policies Test3', false, ['GoodCACert', 'PoliciesP2subCACert', 'DifferentPoliciesTest3EE'], ['GoodCACRL', 'PoliciesP2subCACRL'], { subpart: 3, initialPolicySet: [P1, P2], explicitPolicy: true, userConstrained: [] }],
  ['4.8.4', 'Different Policies Test4', false, ['GoodCACert', 'GoodsubCACert', 'DifferentPoliciesTest4EE'], ['GoodCACRL', 'GoodsubCACRL'], { userConstrained: [] }],
  ['4.8.5', 'Different Policies Test5', false, ['GoodCACert', 'PoliciesP2subCA2Cert', 'DifferentPoliciesTest5EE'], ['GoodCACRL', 'PoliciesP2subCA2CRL'], { userConstrained: [] }],
  ['4.8.6', 'Overlapping Policies Test6', true, ['PoliciesP1234CACert', 'PoliciesP1234subCAP123Cert', 'PoliciesP1234subsubCAP123P12Cert', 'OverlappingPoliciesTest6EE'], ['PoliciesP1234CACRL', 'PoliciesP1234subCAP123CRL', 'PoliciesP1234subsubCAP123P12CRL'], { subpart: 1 }],
  ['4.8.6', 'Overlapping Policies Test6', true, ['PoliciesP1234CACert', 'PoliciesP1234subCAP123Cert', 'PoliciesP1234subsubCAP123P12Cert', 'OverlappingPoliciesTest6EE'], ['PoliciesP1234CACRL', 'PoliciesP1234subCAP123CRL', 'PoliciesP1234subsubCAP123P12CRL'], { subpart: 2, initialPolicySet: [P1] }],
  ['4.8.6', 'Overlapping Policies Test6', false, ['PoliciesP1234CACert', 'PoliciesP1234subCAP123Cert', 'PoliciesP1234subsubCAP123P12Cert', 'OverlappingPoliciesTest6EE'], ['PoliciesP1234CACRL', 'PoliciesP1234subCAP123CRL', 'PoliciesP1234subsubCAP123P12CRL'], { subpart: 3, initialPolicySet: [P2], userConstrained: [] }],
  ['4.8.7', 'Different Policies Test7', false, ['PoliciesP123CACert', 'PoliciesP123subCAP12Cert', 'PoliciesP123subsubCAP12P1Cert', 'DifferentPoliciesTest7EE'], ['PoliciesP123CACRL', 'PoliciesP123subCAP12CRL', 'PoliciesP123subsubCAP12P1CRL'], { userConstrained: [] }],
  ['4.8.8', 'Different Policies Test8', false, ['PoliciesP12CACert', 'PoliciesP12subCAP1Cert', 'PoliciesP12subsubCAP1P2Cert', 'DifferentPoliciesTest8EE'], ['PoliciesP12CACRL', 'PoliciesP12subCAP1CRL', 'PoliciesP12subsubCAP1P2CRL'], { userConstrained: [] }],
  ['4.8.9', 'Different Policies Test9', false, ['PoliciesP123CACert', 'PoliciesP123subCAP12Cert', 'PoliciesP123subsubCAP12P2Cert', 'PoliciesP123subsubsubCAP12P2P1Cert', 'DifferentPoliciesTest9EE'], ['PoliciesP123CACRL', 'PoliciesP123subCAP12CRL', 'PoliciesP123subsubCAP2P2CRL', 'PoliciesP123subsubsubCAP12P2P1CRL'], { userConstrained: [] }],
  ['4.8.10', 'All Certificates Same Policies Test10', true, ['PoliciesP12CACert', 'AllCertificatesSamePoliciesTest10EE'], ['PoliciesP12CACRL'], { subpart: 1, userConstrained: [P1, P2] }],
  ['4.8.10', 'All Certificates Same Policies Test10', true, ['PoliciesP12CACert', 'AllCertificatesSamePoliciesTest10EE'], ['PoliciesP12CACRL'], { subpart: 2, initialPolicySet: [P1] }],
  ['4.8.10', 'All Certificates Same Policies Test10', true, ['PoliciesP12CACert', 'AllCertificatesSamePoliciesTest10EE'], ['PoliciesP12CACRL'], { subpart: 3, initialPolicySet: [P2], userConstrained: [P2] }],
  ['4.8.11', 'All Certificates AnyPolicy Test11', true, ['anyPolicyCACert', 'AllCertificatesanyPolicyTest11EE'], ['anyPolicyCACRL'], { subpart: 1, userConstrained: [ANY] }],
  ['4.8.11', 'All Certificates AnyPolicy Test11', true, ['anyPolicyCACert', 'AllCertificatesanyPolicyTest11EE'], ['anyPolicyCACRL'], { subpart: 2, initialPolicySet: [P1] }],
  ['4.8.12', 'Different Policies Test12', false, ['PoliciesP3CACert', 'DifferentPoliciesTest12EE'], ['PoliciesP3CACRL'], { userConstrained: [] }],
  ['4.8.13', 'All Certificates Same Policies Test13', true, ['PoliciesP123CACert', 'AllCertificatesSamePoliciesTest13EE'], ['PoliciesP123CACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.8.13', 'All Certificates Same Policies Test13', true, ['PoliciesP123CACert', 'AllCertificatesSamePoliciesTest13EE'], ['PoliciesP123CACRL'], { subpart: 2, initialPolicySet: [P2], userConstrained: [P2] }],
  ['4.8.13', 'All Certificates Same Policies Test13', true, ['PoliciesP123CACert', 'AllCertificatesSamePoliciesTest13EE'], ['PoliciesP123CACRL'], { subpart: 3, initialPolicySet: [P3], userConstrained: [P3] }],
  ['4.8.14', 'AnyPolicy Test14', true, ['anyPolicyCACert', 'AnyPolicyTest14EE'], ['anyPolicyCACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.8.14', 'AnyPolicy Test14', false, ['anyPolicyCACert', 'AnyPolicyTest14EE'], ['anyPolicyCACRL'], { subpart: 2, initialPolicySet: [P2], userConstrained: [] }],
  ['4.8.15', 'User Notice Qualifier Test15', true, ['UserNoticeQualifierTest15EE'], []],
  ['4.8.16', 'User Notice Qualifier Test16', true, ['GoodCACert', 'UserNoticeQualifierTest16EE'], ['GoodCACRL']],
  ['4.8.17', 'User Notice Qualifier Test17', true, ['GoodCACert', 'UserNoticeQualifierTest17EE'], ['GoodCACRL']],
  ['4.8.18', 'User Notice Qualifier Test18', true, ['PoliciesP12CACert', 'UserNoticeQualifierTest18EE'], ['PoliciesP12CACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.8.18', 'User Notice Qualifier Test18', true, ['PoliciesP12CACert', 'UserNoticeQualifierTest18EE'], ['PoliciesP12CACRL'], { subpart: 2, initialPolicySet: [P2], userConstrained: [P2] }],
  ['4.8.19', 'User Notice Qualifier Test19', true, ['UserNoticeQualifierTest19EE'], []],
  ['4.8.20', 'CPS Pointer Qualifier Test20', true, ['GoodCACert', 'CPSPointerQualifierTest20EE'], ['GoodCACRL'], { initialPolicySet: [P1], explicitPolicy: true }],
  ['4.9.1', 'Valid RequireExplicitPolicy Test1', true, ['requireExplicitPolicy10CACert', 'requireExplicitPolicy10subCACert', 'requireExplicitPolicy10subsubCACert', 'requireExplicitPolicy10subsubsubCACert', 'ValidrequireExplicitPolicyTest1EE'], ['requireExplicitPolicy10CACRL', 'requireExplicitPolicy10subCACRL', 'requireExplicitPolicy10subsubCACRL', 'requireExplicitPolicy10subsubsubCACRL'], { userConstrained: [] }],
  ['4.9.2', 'Valid RequireExplicitPolicy Test2', true, ['requireExplicitPolicy5CACert', 'requireExplicitPolicy5subCACert', 'requireExplicitPolicy5subsubCACert', 'requireExplicitPolicy5subsubsubCACert', 'ValidrequireExplicitPolicyTest2EE'], ['requireExplicitPolicy5CACRL', 'requireExplicitPolicy5subCACRL', 'requireExplicitPolicy5subsubCACRL', 'requireExplicitPolicy5subsubsubCACRL'], { userConstrained: [] }],
  ['4.9.3', 'Invalid RequireExplicitPolicy Test3', false, ['requireExplicitPolicy4CACert', 'requireExplicitPolicy4subCACert', 'requireExplicitPolicy4subsubCACert', 'requireExplicitPolicy4subsubsubCACert', 'InvalidrequireExplicitPolicyTest3EE'], ['requireExplicitPolicy4CACRL', 'requireExplicitPolicy4subCACRL', 'requireExplicitPolicy4subsubCACRL', 'requireExplicitPolicy4subsubsubCACRL'], { userConstrained: [] }],
  ['4.9.4', 'Valid RequireExplicitPolicy Test4', true, ['requireExplicitPolicy0CACert', 'requireExplicitPolicy0subCACert', 'requireExplicitPolicy0subsubCACert', 'requireExplicitPolicy0subsubsubCACert', 'ValidrequireExplicitPolicyTest4EE'], ['requireExplicitPolicy0CACRL', 'requireExplicitPolicy0subCACRL', 'requireExplicitPolicy0subsubCACRL', 'requireExplicitPolicy0subsubsubCACRL']],
  ['4.9.5', 'Invalid RequireExplicitPolicy Test5', false, ['requireExplicitPolicy7CACert', 'requireExplicitPolicy7subCARE2Cert', 'requireExplicitPolicy7subsubCARE2RE4Cert', 'requireExplicitPolicy7subsubsubCARE2RE4Cert', 'InvalidrequireExplicitPolicyTest5EE'], ['requireExplicitPolicy7CACRL', 'requireExplicitPolicy7subCARE2CRL', 'requireExplicitPolicy7subsubCARE2RE4CRL', 'requireExplicitPolicy7subsubsubCARE2RE4CRL'], { userConstrained: [] }],
  ['4.9.6', 'Valid Self-Issued requireExplicitPolicy Test6', true, ['requireExplicitPolicy2CACert', 'requireExplicitPolicy2SelfIssuedCACert', 'ValidSelfIssuedrequireExplicitPolicyTest6EE'], ['requireExplicitPolicy2CACRL'], { userConstrained: [] }],
  ['4.9.7', 'Invalid Self-Issued requireExplicitPolicy Test7', false, ['requireExplicitPolicy2CACert', 'requireExplicitPolicy2SelfIssuedCACert', 'requireExplicitPolicy2subCACert', 'InvalidSelfIssuedrequireExplicitPolicyTest7EE'], ['requireExplicitPolicy2CACRL', 'requireExplicitPolicy2subCACRL'], { userConstrained: [] }],
  ['4.9.8', 'Invalid Self-Issued requireExplicitPolicy Test8', false, ['requireExplicitPolicy2CACert', 'requireExplicitPolicy2SelfIssuedCACert', 'requireExplicitPolicy2subCACert', 'requireExplicitPolicy2SelfIssuedsubCACert', 'InvalidSelfIssuedrequireExplicitPolicyTest8EE'], ['requireExplicitPolicy2CACRL', 'requireExplicitPolicy2subCACRL'], { userConstrained: [] }],
  ['4.10.1', 'Valid Policy Mapping Test1', true, ['Mapping1to2CACert', 'ValidPolicyMappingTest1EE'], ['Mapping1to2CACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.10.1', 'Valid Policy Mapping Test1', false, ['Mapping1to2CACert', 'ValidPolicyMappingTest1EE'], ['Mapping1to2CACRL'], { subpart: 2, initialPolicySet: [P2], userConstrained: [] }],
  ['4.10.1', 'Valid Policy Mapping Test1', false, ['Mapping1to2CACert', 'ValidPolicyMappingTest1EE'], ['Mapping1to2CACRL'], { subpart: 3, policyMappingInhibit: true, userConstrained: [] }],
  ['4.10.2', 'Invalid Policy Mapping Test2', false, ['Mapping1to2CACert', 'InvalidPolicyMappingTest2EE'], ['Mapping1to2CACRL'], { subpart: 1, userConstrained: [] }],
  ['4.10.2', 'Invalid Policy Mapping Test2', false, ['Mapping1to2CACert', 'InvalidPolicyMappingTest2EE'], ['Mapping1to2CACRL'], { subpart: 2, policyMappingInhibit: true, userConstrained: [] }],
  ['4.10.3', 'Valid Policy Mapping Test3', false, ['P12Mapping1to3CACert', 'P12Mapping1to3subCACert', 'P12Mapping1to3subsubCACert', 'ValidPolicyMappingTest3EE'], ['P12Mapping1to3CACRL', 'P12Mapping1to3subCACRL', 'P12Mapping1to3subsubCACRL'], { subpart: 1, initialPolicySet: [P1], userConstrained: [] }],
  ['4.10.3', 'Valid Policy Mapping Test3', true, ['P12Mapping1to3CACert', 'P12Mapping1to3subCACert', 'P12Mapping1to3subsubCACert', 'ValidPolicyMappingTest3EE'], ['P12Mapping1to3CACRL', 'P12Mapping1to3subCACRL', 'P12Mapping1to3subsubCACRL'], { subpart: 2, initialPolicySet: [P2], userConstrained: [P2] }],
  ['4.10.4', 'Invalid Policy Mapping Test4', false, ['P12Mapping1to3CACert', 'P12Mapping1to3subCACert', 'P12Mapping1to3subsubCACert', 'InvalidPolicyMappingTest4EE'], ['P12Mapping1to3CACRL', 'P12Mapping1to3subCACRL', 'P12Mapping1to3subsubCACRL'], { userConstrained: [] }],
  ['4.10.5', 'Valid Policy Mapping Test5', true, ['P1Mapping1to234CACert', 'P1Mapping1to234subCACert', 'ValidPolicyMappingTest5EE'], ['P1Mapping1to234CACRL', 'P1Mapping1to234subCACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.10.5', 'Valid Policy Mapping Test5', false, ['P1Mapping1to234CACert', 'P1Mapping1to234subCACert', 'ValidPolicyMappingTest5EE'], ['P1Mapping1to234CACRL', 'P1Mapping1to234subCACRL'], { subpart: 2, initialPolicySet: [P6], userConstrained: [] }],
  ['4.10.6', 'Valid Policy Mapping Test6', true, ['P1Mapping1to234CACert', 'P1Mapping1to234subCACert', 'ValidPolicyMappingTest6EE'], ['P1Mapping1to234CACRL', 'P1Mapping1to234subCACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.10.6', 'Valid Policy Mapping Test6', false, ['P1Mapping1to234CACert', 'P1Mapping1to234subCACert', 'ValidPolicyMappingTest6EE'], ['P1Mapping1to234CACRL', 'P1Mapping1to234subCACRL'], { subpart: 2, initialPolicySet: [P6], userConstrained: [] }],
  ['4.10.7', 'Invalid Mapping From anyPolicy Test7', false, ['MappingFromanyPolicyCACert', 'InvalidMappingFromanyPolicyTest7EE'], ['MappingFromanyPolicyCACRL'], { userConstrained: [] }],
  ['4.10.8', 'Invalid Mapping To anyPolicy Test8', false, ['MappingToanyPolicyCACert', 'InvalidMappingToanyPolicyTest8EE'], ['MappingToanyPolicyCACRL'], { userConstrained: [] }],
  ['4.10.9', 'Valid Policy Mapping Test9', true, ['PanyPolicyMapping1to2CACert', 'ValidPolicyMappingTest9EE'], ['PanyPolicyMapping1to2CACRL']],
  ['4.10.10', 'Invalid Policy Mapping Test10', false, ['GoodCACert', 'GoodsubCAPanyPolicyMapping1to2CACert', 'InvalidPolicyMappingTest10EE'], ['GoodCACRL', 'GoodsubCAPanyPolicyMapping1to2CACRL'], { userConstrained: [] }],
  ['4.10.11', 'Valid Policy Mapping Test11', true, ['GoodCACert', 'GoodsubCAPanyPolicyMapping1to2CACert', 'ValidPolicyMappingTest11EE'], ['GoodCACRL', 'GoodsubCAPanyPolicyMapping1to2CACRL']],
  ['4.10.12', 'Valid Policy Mapping Test12', true, ['P12Mapping1to3CACert', 'ValidPolicyMappingTest12EE'], ['P12Mapping1to3CACRL'], { subpart: 1, initialPolicySet: [P1] }],
  ['4.10.12', 'Valid Policy Mapping Test12', true, ['P12Mapping1to3CACert', 'ValidPolicyMappingTest12EE'], ['P12Mapping1to3CACRL'], { subpart: 2, initialPolicySet: [P2], userConstrained: [P2] }],
  ['4.10.13', 'Valid Policy Mapping Test13', true, ['P1anyPolicyMapping1to2CACert', 'ValidPolicyMappingTest13EE'], ['P1anyPolicyMapping1to2CACRL'], { subpart: 1 }],
  ['4.10.13', 'Valid Policy Mapping Test13', true, ['P1anyPolicyMapping1to2CACert', 'ValidPolicyMappingTest13EE'], ['P1anyPolicyMapping1to2CACRL'], { subpart: 2, initialPolicySet: [P1, P2] }],
  ['4.10.13', 'Valid Policy Mapping Test13', false, ['P1anyPolicyMapping1to2CACert', 'ValidPolicyMappingTest13EE'], ['P1anyPolicyMapping1to2CACRL'], { subpart: 3, initialPolicySet: [P2], userConstrained: [] }],
  ['4.10.14', 'Valid Policy Mapping Test14', true, ['P1anyPolicyMapping1to2CACert', 'ValidPolicyMappingTest14EE'], ['P1anyPolicyMapping1to2CACRL']],
  ['4.11.1', 'Invalid inhibitPolicyMapping Test1', false, ['inhibitPolicyMapping0CACert', 'inhibitPolicyMapping0subCACert', 'InvalidinhibitPolicyMappingTest1EE'], ['inhibitPolicyMapping0CACRL', 'inhibitPolicyMapping0subCACRL'], { userConstrained: [] }],
  ['4.11.2', 'Valid inhibitPolicyMapping Test2', true, ['inhibitPolicyMapping1P12CACert', 'inhibitPolicyMapping1P12subCACert', 'ValidinhibitPolicyMappingTest2EE'], ['inhibitPolicyMapping1P12CACRL', 'inhibitPolicyMapping1P12subCACRL']],
  ['4.11.3', 'Invalid inhibitPolicyMapping Test3', false, ['inhibitPolicyMapping1P12CACert', 'inhibitPolicyMapping1P12subCACert', 'inhibitPolicyMapping1P12subsubCACert', 'InvalidinhibitPolicyMappingTest3EE'], ['inhibitPolicyMapping1P12CACRL', 'inhibitPolicyMapping1P12subCACRL', 'inhibitPolicyMapping1P12subsubCACRL'], { userConstrained: [] }],
  ['4.11.4', 'Valid inhibitPolicyMapping Test4', true, ['inhibitPolicyMapping1P12CACert', 'inhibitPolicyMapping1P12subCACert', 'inhibitPolicyMapping1P12subsubCACert', 'ValidinhibitPolicyMappingTest4EE'], ['inhibitPolicyMapping1P12CACRL', 'inhibitPolicyMapping1P12subCACRL', 'inhibitPolicyMapping1P12subsubCACRL'], { userConstrained: [P2] }],
  ['4.11.5', 'Invalid inhibitPolicyMapping Test5', false, ['inhibitPolicyMapping5CACert', 'inhibitPolicyMapping5subCACert', 'inhibitPolicyMapping5subsubCACert', 'inhibitPolicyMapping5subsubsubCACert', 'InvalidinhibitPolicyMappingTest5EE'], ['inhibitPolicyMapping5CACRL', 'inhibitPolicyMapping5subCACRL', 'inhibitPolicyMapping5subsubCACRL', 'inhibitPolicyMapping5subsubsubCACRL'], { userConstrained: [] }],
  ['4.11.6', 'Invalid inhibitPolicyMapping Test6', false, ['inhibitPolicyMapping1P12CACert', 'inhibitPolicyMapping1P12subCAIPM5Cert', 'inhibitPolicyMapping1P12subsubCAIPM5Cert', 'InvalidinhibitPolicyMappingTest6EE'], ['inhibitPolicyMapping1P12CACRL', 'inhibitPolicyMapping1P12subCAIPM5CRL', 'inhibitPolicyMapping1P12subsubCAIPM5CRL'], { userConstrained: [] }],
  ['4.11.7', 'Valid Self-Issued inhibitPolicyMapping Test7', true, ['inhibitPolicyMapping1P1CACert', 'inhibitPolicyMapping1P1SelfIssuedCACert', 'inhibitPolicyMapping1P1subCACert', 'ValidSelfIssuedinhibitPolicyMappingTest7EE'], ['inhibitPolicyMapping1P1CACRL', 'inhibitPolicyMapping1P1subCACRL']],
  ['4.11.8', 'Invalid Self-Issued inhibitPolicyMapping Test8', false, ['inhibitPolicyMapping1P1CACert', 'inhibitPolicyMapping1P1SelfIssuedCACert', 'inhibitPolicyMapping1P1subCACert', 'inhibitPolicyMapping1P1subsubCACert', 'InvalidSelfIssuedinhibitPolicyMappingTest8EE'], ['inhibitPolicyMapping1P1CACRL', 'inhibitPolicyMapping1P1subCACRL', 'inhibitPolicyMapping1P1subsubCACRL'], { userConstrained: [] }],
  ['4.11.9', 'Invalid Self-Issued inhibitPolicyMapping Test9', false, ['inhibitPolicyMapping1P1CACert', 'inhibitPolicyMapping1P1SelfIssuedCACert', 'inhibitPolicyMapping1P1subCACert', 'inhibitPolicyMapping1P1subsubCACert', 'InvalidSelfIssuedinhibitPolicyMappingTest9EE'], ['inhibitPolicyMapping1P1CACRL', 'inhibitPolicyMapping1P1subCACRL', 'inhibitPolicyMapping1P1subsubCACRL'], { userConstrained: [] }],
  ['4.11.10', 'Invalid Self-Issued inhibitPolicyMapping Test10', false, ['inhibitPolicyMapping1P1CACert', 'inhibitPolicyMapping1P1SelfIssuedCACert', 'inhibitPolicyMapping1P1subCACert', 'inhibitPolicyMapping1P1SelfIssuedsubCACert', 'InvalidSelfIssuedinhibitPolicyMappingTest10EE'], ['inhibitPolicyMapping1P1CACRL', 'inhibitPolicyMapping1P1subCACRL'], { userConstrained: [] }],
  ['4.11.11', 'Invalid Self-Issued inhibitPolicyMapping Test11', false, ['inhibitPolicyMapping1P1CACert', 'inhibitPolicyMapping1P1SelfIssuedCACert', 'inhibitPolicyMapping1P1subCACert', 'inhibitPolicyMapping1P1SelfIssuedsubCACert', 'InvalidSelfIssuedinhibitPolicyMappingTest11EE'], ['inhibitPolicyMapping1P1CACRL', 'inhibitPolicyMapping1P1subCACRL'], { userConstrained: [] }],
  ['4.12.1', 'Invalid inhibitAnyPolicy Test1', false, ['inhibitAnyPolicy0CACert', 'InvalidinhibitAnyPolicyTest1EE'], ['inhibitAnyPolicy0CACRL'], { userConstrained: [] }],
  ['4.12.2', 'Valid inhibitAnyPolicy Test2', true, ['inhibitAnyPolicy0CACert', 'ValidinhibitAnyPolicyTest2EE'], ['inhibitAnyPolicy0CACRL']],
  ['4.12.3', 'inhibitAnyPolicy Test3', true, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1subCA1Cert', 'inhibitAnyPolicyTest3EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA1CRL'], { subpart: 1 }],
  ['4.12.3', 'inhibitAnyPolicy Test3', false, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1subCA1Cert', 'inhibitAnyPolicyTest3EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA1CRL'], { subpart: 2, anyPolicyInhibit: true, userConstrained: [] }],
  ['4.12.4', 'Invalid inhibitAnyPolicy Test4', false, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1subCA1Cert', 'InvalidinhibitAnyPolicyTest4EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA1CRL'], { userConstrained: [] }],
  ['4.12.5', 'Invalid inhibitAnyPolicy Test5', false, ['inhibitAnyPolicy5CACert', 'inhibitAnyPolicy5subCACert', 'inhibitAnyPolicy5subsubCACert', 'InvalidinhibitAnyPolicyTest5EE'], ['inhibitAnyPolicy5CACRL', 'inhibitAnyPolicy5subCACRL', 'inhibitAnyPolicy5subsubCACRL'], { userConstrained: [] }],
  ['4.12.6', 'Invalid inhibitAnyPolicy Test6', false, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1subCAIAP5Cert', 'InvalidinhibitAnyPolicyTest6EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCAIAP5CRL'], { userConstrained: [] }],
  ['4.12.7', 'Valid Self-Issued inhibitAnyPolicy Test7', true, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1SelfIssuedCACert', 'inhibitAnyPolicy1subCA2Cert', 'ValidSelfIssuedinhibitAnyPolicyTest7EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA2CRL']],
  ['4.12.8', 'Invalid Self-Issued inhibitAnyPolicy Test8', false, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1SelfIssuedCACert', 'inhibitAnyPolicy1subCA2Cert', 'inhibitAnyPolicy1subsubCA2Cert', 'InvalidSelfIssuedinhibitAnyPolicyTest8EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA2CRL', 'inhibitAnyPolicy1subsubCA2CRL'], { userConstrained: [] }],
  ['4.12.9', 'Valid Self-Issued inhibitAnyPolicy Test9', true, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1SelfIssuedCACert', 'inhibitAnyPolicy1subCA2Cert', 'inhibitAnyPolicy1SelfIssuedsubCA2Cert', 'ValidSelfIssuedinhibitAnyPolicyTest9EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA2CRL']],
  ['4.12.10', 'Invalid Self-Issued inhibitAnyPolicy Test10', false, ['inhibitAnyPolicy1CACert', 'inhibitAnyPolicy1SelfIssuedCACert', 'inhibitAnyPolicy1subCA2Cert', 'InvalidSelfIssuedinhibitAnyPolicyTest10EE'], ['inhibitAnyPolicy1CACRL', 'inhibitAnyPolicy1subCA2CRL'], { userConstrained: [] }],
  ['4.13.1', 'Valid DN nameConstraints Test1', true, ['nameConstraintsDN1CACert', 'ValidDNnameConstraintsTest1EE'], ['nameConstraintsDN1CACRL']],
  ['4.13.2', 'Invalid DN nameConstraints Test2', false, ['nameConstraintsDN1CACert', 'InvalidDNnameConstraintsTest2EE'], ['nameConstraintsDN1CACRL']],
  ['4.13.3', 'Invalid DN nameConstraints Test3', false, ['nameConstraintsDN1CACert', 'InvalidDNnameConstraintsTest3EE'], ['nameConstraintsDN1CACRL']],
  ['4.13.4', 'Valid DN nameConstraints Test4', true, ['nameConstraintsDN1CACert', 'ValidDNnameConstraintsTest4EE'], ['nameConstraintsDN1CACRL']],
  ['4.13.5', 'Valid DN nameConstraints Test5', true, ['nameConstraintsDN2CACert', 'ValidDNnameConstraintsTest5EE'], ['nameConstraintsDN2CACRL']],
  ['4.13.6', 'Valid DN nameConstraints Test6', true, ['nameConstraintsDN3CACert', 'ValidDNnameConstraintsTest6EE'], ['nameConstraintsDN3CACRL']],
  ['4.13.7', 'Invalid DN nameConstraints Test7', false, ['nameConstraintsDN3CACert', 'InvalidDNnameConstraintsTest7EE'], ['nameConstraintsDN3CACRL']],
  ['4.13.8', 'Invalid DN nameConstraints Test8', false, ['nameConstraintsDN4CACert', 'InvalidDNnameConstraintsTest8EE'], ['nameConstraintsDN4CACRL']],
  ['4.13.9', 'Invalid DN nameConstraints Test9', false, ['nameConstraintsDN4CACert', 'InvalidDNnameConstraintsTest9EE'], ['nameConstraintsDN4CACRL']],
  ['4.13.10', 'Invalid DN nameConstraints Test10', false, ['nameConstraintsDN5CACert', 'InvalidDNnameConstraintsTest10EE'], ['nameConstraintsDN5CACRL']],
  ['4.13.11', 'Valid DN nameConstraints Test11', true, ['nameConstraintsDN5CACert', 'ValidDNnameConstraintsTest11EE'], ['nameConstraintsDN5CACRL']],
  ['4.13.12', 'Invalid DN nameConstraints Test12', false, ['nameConstraintsDN1CACert', 'nameConstraintsDN1subCA1Cert', 'InvalidDNnameConstraintsTest12EE'], ['nameConstraintsDN1CACRL', 'nameConstraintsDN1subCA1CRL']],
  ['4.13.13', 'Invalid DN nameConstraints Test13', false, ['nameConstraintsDN1CACert', 'nameConstraintsDN1subCA2Cert', 'InvalidDNnameConstraintsTest13EE'], ['nameConstraintsDN1CACRL', 'nameConstraintsDN1subCA2CRL']],
  ['4.13.14', 'Valid DN nameConstraints Test14', true, ['nameConstraintsDN1CACert', 'nameConstraintsDN1subCA2Cert', 'ValidDNnameConstraintsTest14EE'], ['nameConstraintsDN1CACRL', 'nameConstraintsDN1subCA2CRL']],
  ['4.13.15', 'Invalid DN nameConstraints Test15', false, ['nameConstraintsDN3CACert', 'nameConstraintsDN3subCA1Cert', 'InvalidDNnameConstraintsTest15EE'], ['nameConstraintsDN3CACRL', 'nameConstraintsDN3subCA1CRL']],
  ['4.13.16', 'Invalid DN nameConstraints Test16', false, ['nameConstraintsDN3CACert', 'nameConstraintsDN3subCA1Cert', 'InvalidDNnameConstraintsTest16EE'], ['nameConstraintsDN3CACRL', 'nameConstraintsDN3subCA1CRL']],
  ['4.13.17', 'Invalid DN nameConstraints Test17', false, ['nameConstraintsDN3CACert', 'nameConstraintsDN3subCA2Cert', 'InvalidDNnameConstraintsTest17EE'], ['nameConstraintsDN3CACRL', 'nameConstraintsDN3subCA2CRL']],
  ['4.13.18', 'Valid DN nameConstraints Test18', true, ['nameConstraintsDN3CACert', 'nameConstraintsDN3subCA2Cert', 'ValidDNnameConstraintsTest18EE'], ['nameConstraintsDN3CACRL', 'nameConstraintsDN3subCA2CRL']],
  ['4.13.19', 'Valid Self-Issued DN nameConstraints Test19', true, ['nameConstraintsDN1CACert', 'nameConstraintsDN1SelfIssuedCACert', 'ValidDNnameConstraintsTest19EE'], ['nameConstraintsDN1CACRL']],
  ['4.13.20', 'Invalid Self-Issued DN nameConstraints Test20', false, ['nameConstraintsDN1CACert', 'InvalidDNnameConstraintsTest20EE'], ['nameConstraintsDN1CACRL']],
  ['4.13.21', 'Valid RFC822 nameConstraints Test21', true, ['nameConstraintsRFC822CA1Cert', 'ValidRFC822nameConstraintsTest21EE'], ['nameConstraintsRFC822CA1CRL']],
  ['4.13.22', 'Invalid RFC822 nameConstraints Test22', false, ['nameConstraintsRFC822CA1Cert', 'InvalidRFC822nameConstraintsTest22EE'], ['nameConstraintsRFC822CA1CRL']],
  ['4.13.23', 'Valid RFC822 nameConstraints Test23', true, ['nameConstraintsRFC822CA2Cert', 'ValidRFC822nameConstraintsTest23EE'], ['nameConstraintsRFC822CA2CRL']],
  ['4.13.24', 'Invalid RFC822 nameConstraints Test24', false, ['nameConstraintsRFC822CA2Cert', 'InvalidRFC822nameConstraintsTest24EE'], ['nameConstraintsRFC822CA2CRL']],
  ['4.13.25', 'Valid RFC822 nameConstraints Test25', true, ['nameConstraintsRFC822CA3Cert', 'ValidRFC822nameConstraintsTest25EE'], ['nameConstraintsRFC822CA3CRL']],
  ['4.13.26', 'Invalid RFC822 nameConstraints Test26', false, ['nameConstraintsRFC822CA3Cert', 'InvalidRFC822nameConstraintsTest26EE'], ['nameConstraintsRFC822CA3CRL']],
  ['4.13.27', 'Valid DN and RFC822 nameConstraints Test27', true, ['nameConstraintsDN1CACert', 'nameConstraintsDN1subCA3Cert', 'ValidDNandRFC822nameConstraintsTest27EE'], ['nameConstraintsDN1CACRL', 'nameConstraintsDN1subCA3CRL']],
  ['4.13.28', 'Invalid DN and RFC822 nameConstraints Test28', false, ['nameConstraintsDN1CACert', 'nameConstraintsDN1subCA3Cert', 'InvalidDNandRFC822nameConstraintsTest28EE'], ['nameConstraintsDN1CACRL', 'nameConstraintsDN1subCA3CRL']],
  ['4.13.29', 'Invalid DN and RFC822 nameConstraints Test29', false, ['nameConstraintsDN1CACert', 'nameConstraintsDN1subCA3Cert', 'InvalidDNandRFC822nameConstraintsTest29EE'], ['nameConstraintsDN1CACRL', 'nameConstraintsDN1subCA3CRL']],
  ['4.13.30', 'Valid DNS nameConstraints Test30', true, ['nameConstraintsDNS1CACert', 'ValidDNSnameConstraintsTest30EE'], ['nameConstraintsDNS1CACRL']],
  ['4.13.31', 'Invalid DNS nameConstraints Test31', false, ['nameConstraintsDNS1CACert', 'InvalidDNSnameConstraintsTest31EE'], ['nameConstraintsDNS1CACRL']],
  ['4.13.32', 'Valid DNS nameConstraints Test32', true, ['nameConstraintsDNS2CACert', 'ValidDNSnameConstraintsTest32EE'], ['nameConstraintsDNS2CACRL']],
  ['4.13.33', 'Invalid DNS nameConstraints Test33', false, ['nameConstraintsDNS2CACert', 'InvalidDNSnameConstraintsTest33EE'], ['nameConstraintsDNS2CACRL']],
  ['4.13.34', 'Valid URI nameConstraints Test34', true, ['nameConstraintsURI1CACert', 'ValidURInameConstraintsTest34EE'], ['nameConstraintsURI1CACRL']],
  ['4.13.35', 'Invalid URI nameConstraints Test35', false, ['nameConstraintsURI1CACert', 'InvalidURInameConstraintsTest35EE'], ['nameConstraintsURI1CACRL']],
  ['4.13.36', 'Valid URI nameConstraints Test36', true, ['nameConstraintsURI2CACert', 'ValidURInameConstraintsTest36EE'], ['nameConstraintsURI2CACRL']],
  ['4.13.37', 'Invalid URI nameConstraints Test37', false, ['nameConstraintsURI2CACert', 'InvalidURInameConstraintsTest37EE'], ['nameConstraintsURI2CACRL']],
  ['4.13.38', 'Invalid DNS nameConstraints Test38', false, ['nameConstraintsDNS1CACert', 'InvalidDNSnameConstraintsTest38EE'], ['nameConstraintsDNS1CACRL']],
  ['4.14.1', 'Valid distributionPoint Test1', true, ['distributionPoint1CACert', 'ValiddistributionPointTest1EE'], ['distributionPoint1CACRL']],
  ['4.14.2', 'Invalid distributionPoint Test2', false, ['distributionPoint1CACert', 'InvaliddistributionPointTest2EE'], ['distributionPoint1CACRL']],
  ['4.14.3', 'Invalid distributionPoint Test3', false, ['distributionPoint1CACert', 'InvaliddistributionPointTest3EE'], ['distributionPoint1CACRL']],
  ['4.14.4', 'Valid distributionPoint Test4', true, ['distributionPoint1CACert', 'ValiddistributionPointTest4EE'], ['distributionPoint1CACRL']],
  ['4.14.5', 'Valid distributionPoint Test5', true, ['distributionPoint2CACert', 'ValiddistributionPointTest5EE'], ['distributionPoint2CACRL']],
  ['4.14.6', 'Invalid distributionPoint Test6', false, ['distributionPoint2CACert', 'InvaliddistributionPointTest6EE'], ['distributionPoint2CACRL']],
  ['4.14.7', 'Valid distributionPoint Test7', true, ['distributionPoint2CACert', 'ValiddistributionPointTest7EE'], ['distributionPoint2CACRL']],
  ['4.14.8', 'Invalid distributionPoint Test8', false, ['distributionPoint2CACert', 'InvaliddistributionPointTest8EE'], ['distributionPoint2CACRL']],
  ['4.14.9', 'Invalid distributionPoint Test9', false, ['distributionPoint2CACert', 'InvaliddistributionPointTest9EE'], ['distributionPoint2CACRL']],
  ['4.14.10', 'Valid No issuingDistributionPoint Test10', true, ['NoissuingDistributionPointCACert', 'ValidNoissuingDistributionPointTest10EE'], ['NoissuingDistributionPointCACRL']],
  ['4.14.11', 'Invalid onlyContainsUserCerts CRL Test11', false, ['onlyContainsUserCertsCACert', 'InvalidonlyContainsUserCertsTest11EE'], ['onlyContainsUserCertsCACRL']],
  ['4.14.12', 'Invalid onlyContainsCACerts CRL Test12', false, ['onlyContainsCACertsCACert', 'InvalidonlyContainsCACertsTest12EE'], ['onlyContainsCACertsCACRL']],
  ['4.14.13', 'Valid onlyContainsCACerts CRL Test13', true, ['onlyContainsCACertsCACert', 'ValidonlyContainsCACertsTest13EE'], ['onlyContainsCACertsCACRL']],
  ['4.14.14', 'Invalid onlyContainsAttributeCerts Test14', false, ['onlyContainsAttributeCertsCACert', 'InvalidonlyContainsAttributeCertsTest14EE'], ['onlyContainsAttributeCertsCACRL']],
  ['4.14.15', 'Invalid onlySomeReasons Test15', false, ['onlySomeReasonsCA1Cert', 'InvalidonlySomeReasonsTest15EE'], ['onlySomeReasonsCA1compromiseCRL', 'onlySomeReasonsCA1otherreasonsCRL']],
  ['4.14.16', 'Invalid onlySomeReasons Test16', false, ['onlySomeReasonsCA1Cert', 'InvalidonlySomeReasonsTest16EE'], ['onlySomeReasonsCA1compromiseCRL', 'onlySomeReasonsCA1otherreasonsCRL']],
  ['4.14.17', 'Invalid onlySomeReasons Test17', false, ['onlySomeReasonsCA2Cert', 'InvalidonlySomeReasonsTest17EE'], ['onlySomeReasonsCA2CRL1', 'onlySomeReasonsCA2CRL2']],
  ['4.14.18', 'Valid onlySomeReasons Test18', true, ['onlySomeReasonsCA3Cert', 'ValidonlySomeReasonsTest18EE'], ['onlySomeReasonsCA3compromiseCRL', 'onlySomeReasonsCA3otherreasonsCRL']],
  ['4.14.19', 'Valid onlySomeReasons Test19', true, ['onlySomeReasonsCA4Cert', 'ValidonlySomeReasonsTest19EE'], ['onlySomeReasonsCA4compromiseCRL', 'onlySomeReasonsCA4otherreasonsCRL']],
  ['4.14.20', 'Invalid onlySomeReasons Test20', false, ['onlySomeReasonsCA4Cert', 'InvalidonlySomeReasonsTest20EE'], ['onlySomeReasonsCA4compromiseCRL', 'onlySomeReasonsCA4otherreasonsCRL']],
  ['4.14.21', 'Invalid onlySomeReasons Test21', false, ['onlySomeReasonsCA4Cert', 'InvalidonlySomeReasonsTest21EE'], ['onlySomeReasonsCA4compromiseCRL', 'onlySomeReasonsCA4otherreasonsCRL']],
  ['4.14.22', 'Valid IDP with indirectCRL Test22', true, ['indirectCRLCA1Cert', 'ValidIDPwithindirectCRLTest22EE'], ['indirectCRLCA1CRL']],
  ['4.14.23', 'Invalid IDP with indirectCRL Test23', false, ['indirectCRLCA1Cert', 'InvalidIDPwithindirectCRLTest23EE'], ['indirectCRLCA1CRL']],
  ['4.14.24', 'Valid IDP with indirectCRL Test24', true, ['indirectCRLCA2Cert', 'indirectCRLCA1Cert', 'ValidIDPwithindirectCRLTest24EE'], ['indirectCRLCA1CRL']],
  ['4.14.25', 'Valid IDP with indirectCRL Test25', true, ['indirectCRLCA2Cert', 'indirectCRLCA1Cert', 'ValidIDPwithindirectCRLTest25EE'], ['indirectCRLCA1CRL']],
  ['4.14.26', 'Invalid IDP with indirectCRL Test26', false, ['indirectCRLCA2Cert', 'indirectCRLCA1Cert', 'InvalidIDPwithindirectCRLTest26EE'], ['indirectCRLCA1CRL']],
  ['4.14.27', 'Invalid cRLIssuer Test27', false, ['indirectCRLCA2Cert', 'GoodCACert', 'InvalidcRLIssuerTest27EE'], ['GoodCACRL']],
  ['4.14.28', 'Valid cRLIssuer Test28', true, ['indirectCRLCA3Cert', 'indirectCRLCA3cRLIssuerCert', 'ValidcRLIssuerTest28EE'], ['indirectCRLCA3CRL', 'indirectCRLCA3cRLIssuerCRL']],
  ['4.14.29', 'Valid cRLIssuer Test29', true, ['indirectCRLCA3Cert', 'indirectCRLCA3cRLIssuerCert', 'ValidcRLIssuerTest29EE'], ['indirectCRLCA3CRL', 'indirectCRLCA3cRLIssuerCRL']],
  ['4.14.30', 'Valid cRLIssuer Test30', true, ['indirectCRLCA4Cert', 'indirectCRLCA4cRLIssuerCert', 'ValidcRLIssuerTest30EE'], ['indirectCRLCA4cRLIssuerCRL']],
  ['4.14.31', 'Invalid cRLIssuer Test31', false, ['indirectCRLCA5Cert', 'indirectCRLCA6Cert', 'InvalidcRLIssuerTest31EE'], ['indirectCRLCA5CRL']],
  ['4.14.32', 'Invalid cRLIssuer Test32', false, ['indirectCRLCA5Cert', 'indirectCRLCA6Cert', 'InvalidcRLIssuerTest32EE'], ['indirectCRLCA5CRL']],
  ['4.14.33', 'Valid cRLIssuer Test33', true, ['indirectCRLCA5Cert', 'indirectCRLCA6Cert', 'ValidcRLIssuerTest33EE'], ['indirectCRLCA5CRL']],
  ['4.14.34', 'Invalid cRLIssuer Test34', false, ['indirectCRLCA5Cert', 'InvalidcRLIssuerTest34EE'], ['indirectCRLCA5CRL']],
  ['4.14.35', 'Invalid cRLIssuer Test35', false, ['indirectCRLCA5Cert', 'InvalidcRLIssuerTest35EE'], ['indirectCRLCA5CRL']],
  ['4.15.1', 'Invalid deltaCRLIndicator No Base Test1', false, ['deltaCRLIndicatorNoBaseCACert', 'InvaliddeltaCRLIndicatorNoBaseTest1EE'], ['deltaCRLIndicatorNoBaseCACRL']],
  ['4.15.2', 'Valid delta-CRL Test2', true, ['deltaCRLCA1Cert', 'ValiddeltaCRLTest2EE'], ['deltaCRLCA1CRL', 'deltaCRLCA1deltaCRL']],
  ['4.15.3', 'Invalid delta-CRL Test3', false, ['deltaCRLCA1Cert', 'InvaliddeltaCRLTest3EE'], ['deltaCRLCA1CRL', 'deltaCRLCA1deltaCRL']],
  ['4.15.4', 'Invalid delta-CRL Test4', false, ['deltaCRLCA1Cert', 'InvaliddeltaCRLTest4EE'], ['deltaCRLCA1CRL', 'deltaCRLCA1deltaCRL']],
  ['4.15.5', 'Valid delta-CRL Test5', true, ['deltaCRLCA1Cert', 'ValiddeltaCRLTest5EE'], ['deltaCRLCA1CRL', 'deltaCRLCA1deltaCRL']],
  ['4.15.6', 'Invalid delta-CRL Test6', false, ['deltaCRLCA1Cert', 'InvaliddeltaCRLTest6EE'], ['deltaCRLCA1CRL', 'deltaCRLCA1deltaCRL']],
  ['4.15.7', 'Valid delta-CRL Test7', true, ['deltaCRLCA1Cert', 'ValiddeltaCRLTest7EE'], ['deltaCRLCA1CRL', 'deltaCRLCA1deltaCRL']],
  ['4.15.8', 'Valid delta-CRL Test8', true, ['deltaCRLCA2Cert', 'ValiddeltaCRLTest8EE'], ['deltaCRLCA2CRL', 'deltaCRLCA2deltaCRL']],
  ['4.15.9', 'Invalid delta-CRL Test9', false, ['deltaCRLCA2Cert', 'InvaliddeltaCRLTest9EE'], ['deltaCRLCA2CRL', 'deltaCRLCA2deltaCRL']],
  ['4.15.10', 'Invalid delta-CRL Test10', false, ['deltaCRLCA3Cert', 'InvaliddeltaCRLTest10EE'], ['deltaCRLCA3CRL', 'deltaCRLCA3deltaCRL']],
  ['4.16.1', 'Valid Unknown Not Critical Certificate Extension Test1', true, ['ValidUnknownNotCriticalCertificateExtensionTest1EE'], []],
  ['4.16.2', 'Invalid Unknown Critical Certificate Extension Test2', false, ['InvalidUnknownCriticalCertificateExtensionTest2EE'], []],
];

export const PKITS_CASES: PkitsCase[] = ROWS.map(([id, title, valid, certificates, crls, settings = {}]) => ({
  id,
  name: settings.subpart ? `${id} (subpart ${settings.subpart})` : id,
  title,
  valid,
  certificates,
  crls,
  ...settings,
  nonDefault: Boolean(settings.initialPolicySet || settings.explicitPolicy || settings.policyMappingInhibit || settings.anyPolicyInhibit),
}));

/** PKITS 4.1.4-4.1.6 sign with DSA, which localsign does not verify (path-certificate.ts): left out, and the refusal tested by name. */
export const DSA_CASES = new Set(['4.1.4', '4.1.5', '4.1.6']);

/** The section of a case: "4.14" for 4.14.3. */
export const sectionOf = (id: string): string => id.split('.').slice(0, 2).join('.');

/** The files of `c` (trust anchor and its CRL included) missing from `dir` (../shared/vectors/pkits-all/), by name. */
export function missingFiles(dir: string, c: PkitsCase): string[] {
  const certs = ['TrustAnchorRootCertificate', ...c.certificates].filter((n) => !existsSync(join(dir, 'certs', `${n}.crt`))).map((n) => `certs/${n}.crt`);
  const crls = ['TrustAnchorRootCRL', ...c.crls].filter((n) => !existsSync(join(dir, 'crls', `${n}.crl`))).map((n) => `crls/${n}.crl`);
  return [...certs, ...crls];
}
