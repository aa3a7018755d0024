/** Object identifiers used by the CMS, RFC 3161 and X.509 code, with the clause that defines each. */
export const OID = {
  data: '1.2.840.113549.1.7.1', // RFC 5652 §4
  signedData: '1.2.840.113549.1.7.2', // RFC 5652 §5
  contentType: '1.2.840.113549.1.9.3', // RFC 5652 §11.1
  messageDigest: '1.2.840.113549.1.9.4', // RFC 5652 §11.2
  signingTime: '1.2.840.113549.1.9.5', // RFC 5652 §11.3
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47', // RFC 5035 §3
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14', // RFC 3161 Appendix A
  tstInfo: '1.2.840.113549.1.9.16.1.4', // RFC 3161 §2.4.2
  sha256: '2.16.840.1.101.3.4.2.1', // RFC 5754 §2.2
  rsaEncryption: '1.2.840.113549.1.1.1', // RFC 8017 Appendix A.1
  sha256WithRSA: '1.2.840.113549.1.1.11', // RFC 4055 §5
  ecPublicKey: '1.2.840.10045.2.1', // RFC 5480 §2.1.1
  prime256v1: '1.2.840.10045.3.1.7', // RFC 5480 §2.1.1.1
  ecdsaWithSha256: '1.2.840.10045.4.3.2', // RFC 5758 §3.2
  basicConstraints: '2.5.29.19', // RFC 5280 §4.2.1.9
  keyUsage: '2.5.29.15', // RFC 5280 §4.2.1.3
  subjectKeyIdentifier: '2.5.29.14', // RFC 5280 §4.2.1.2
  authorityKeyIdentifier: '2.5.29.35', // RFC 5280 §4.2.1.1
} as const;

/** Names for the key types we refuse, so the error says what the certificate holds. */
export const KEY_TYPE_NAMES: Record<string, string> = {
  '1.2.840.10040.4.1': 'DSA',
  '1.3.101.112': 'Ed25519',
  '1.3.101.113': 'Ed448',
  '1.2.840.113549.1.1.10': 'RSASSA-PSS',
  '1.3.132.0.34': 'EC P-384',
  '1.3.132.0.35': 'EC P-521',
  '1.3.132.0.10': 'EC secp256k1',
  '1.3.36.3.3.2.8.1.1.7': 'EC brainpoolP256r1',
};
