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
  secp256k1: '1.3.132.0.10', // SEC 2 §A.2.1
  ecdsaWithSha256: '1.2.840.10045.4.3.2', // RFC 5758 §3.2
  basicConstraints: '2.5.29.19', // RFC 5280 §4.2.1.9
  keyUsage: '2.5.29.15', // RFC 5280 §4.2.1.3
  subjectKeyIdentifier: '2.5.29.14', // RFC 5280 §4.2.1.2
  authorityKeyIdentifier: '2.5.29.35', // RFC 5280 §4.2.1.1
  extKeyUsage: '2.5.29.37', // RFC 5280 §4.2.1.12
  cRLDistributionPoints: '2.5.29.31', // RFC 5280 §4.2.1.13
  cRLNumber: '2.5.29.20', // RFC 5280 §5.2.3
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1', // RFC 5280 §4.2.2.1
  adOcsp: '1.3.6.1.5.5.7.48.1', // RFC 5280 §4.2.2.1 id-ad-ocsp
  adCaIssuers: '1.3.6.1.5.5.7.48.2', // RFC 5280 §4.2.2.1 id-ad-caIssuers
  kpTimeStamping: '1.3.6.1.5.5.7.3.8', // RFC 5280 §4.2.1.12
  kpOcspSigning: '1.3.6.1.5.5.7.3.9', // RFC 5280 §4.2.1.12
  ocspBasic: '1.3.6.1.5.5.7.48.1.1', // RFC 6960 §4.2.1 id-pkix-ocsp-basic
  ocspNonce: '1.3.6.1.5.5.7.48.1.2', // RFC 6960 §4.4.1
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5', // RFC 6960 §4.2.2.2.1
  riOcspResponse: '1.3.6.1.5.5.7.16.2', // RFC 5940 §4.1 id-ri-ocsp-response
  adbeRevocationInfoArchival: '1.2.840.113583.1.1.8', // ISO 32000-1 §12.8.3.3.2
  sha1: '1.3.14.3.2.26', // RFC 3279 §2.2.1
  sha384: '2.16.840.1.101.3.4.2.2', // RFC 5754 §2.3
  sha512: '2.16.840.1.101.3.4.2.3', // RFC 5754 §2.4
  sha1WithRSA: '1.2.840.113549.1.1.5', // RFC 3279 §2.2.1
  sha384WithRSA: '1.2.840.113549.1.1.12', // RFC 4055 §5
  sha512WithRSA: '1.2.840.113549.1.1.13', // RFC 4055 §5
  ecdsaWithSha1: '1.2.840.10045.4.1', // RFC 3279 §2.2.3
  ecdsaWithSha384: '1.2.840.10045.4.3.3', // RFC 5758 §3.2
  ecdsaWithSha512: '1.2.840.10045.4.3.4', // RFC 5758 §3.2
  md5: '1.2.840.113549.2.5', // RFC 1321
  sha224: '2.16.840.1.101.3.4.2.4', // RFC 5754 §2.1
  sha3_224: '2.16.840.1.101.3.4.2.7', // NIST CSOR, FIPS 202
  sha3_256: '2.16.840.1.101.3.4.2.8',
  sha3_384: '2.16.840.1.101.3.4.2.9',
  sha3_512: '2.16.840.1.101.3.4.2.10',
  shake256: '2.16.840.1.101.3.4.2.12', // RFC 8702 §2: 512 bits of output in CMS
  shake256Len: '2.16.840.1.101.3.4.2.18', // RFC 8419 §2.3 id-shake256-len, output length in bits as parameter
  md5WithRSA: '1.2.840.113549.1.1.4', // RFC 3279 §2.2.1
  sha224WithRSA: '1.2.840.113549.1.1.14', // RFC 4055 §5
  rsassaPss: '1.2.840.113549.1.1.10', // RFC 4055 §3.1
  mgf1: '1.2.840.113549.1.1.8', // RFC 4055 §2.2
  ecdsaWithSha224: '1.2.840.10045.4.3.1', // RFC 5758 §3.2
  ecdsaWithSha3_224: '2.16.840.1.101.3.4.3.9', // NIST CSOR
  ecdsaWithSha3_256: '2.16.840.1.101.3.4.3.10',
  ecdsaWithSha3_384: '2.16.840.1.101.3.4.3.11',
  ecdsaWithSha3_512: '2.16.840.1.101.3.4.3.12',
  rsaWithSha3_224: '2.16.840.1.101.3.4.3.13', // NIST CSOR id-rsassa-pkcs1-v1_5-with-sha3-224
  rsaWithSha3_256: '2.16.840.1.101.3.4.3.14',
  rsaWithSha3_384: '2.16.840.1.101.3.4.3.15',
  rsaWithSha3_512: '2.16.840.1.101.3.4.3.16',
  ed25519: '1.3.101.112', // RFC 8410 §3
  ed448: '1.3.101.113', // RFC 8410 §3
  rsassaPssShake256: '1.3.6.1.5.5.7.6.31', // RFC 8702 §3.2.1
  ecdsaWithShake256: '1.3.6.1.5.5.7.6.33', // RFC 8702 §3.2.2
  dsa: '1.2.840.10040.4.1', // RFC 3279 §2.3.2
} as const;

/**
 * Digest names node:crypto knows, by digest-algorithm OID. SHAKE256 is here with its CMS output
 * length (64 bytes: RFC 8419 §2.3, RFC 8702 §2), which callers hashing with it set (pki/digest.ts).
 */
export const DIGEST_NAMES: Record<string, string> = {
  [OID.md5]: 'md5',
  [OID.sha1]: 'sha1',
  [OID.sha224]: 'sha224',
  [OID.sha256]: 'sha256',
  [OID.sha384]: 'sha384',
  [OID.sha512]: 'sha512',
  [OID.sha3_224]: 'sha3-224',
  [OID.sha3_256]: 'sha3-256',
  [OID.sha3_384]: 'sha3-384',
  [OID.sha3_512]: 'sha3-512',
  [OID.shake256]: 'shake256',
  [OID.shake256Len]: 'shake256',
};

/** How reports name a digest algorithm. */
export const DIGEST_LABELS: Record<string, string> = {
  md5: 'MD5', sha1: 'SHA-1', sha224: 'SHA-224', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512',
  'sha3-224': 'SHA3-224', 'sha3-256': 'SHA3-256', 'sha3-384': 'SHA3-384', 'sha3-512': 'SHA3-512', shake256: 'SHAKE256',
};

/** The digest of a hash-then-sign signature algorithm; rsaEncryption alone leaves it to the digest algorithm (RFC 5652 §5.4). */
export const SIGNATURE_DIGESTS: Record<string, string> = {
  [OID.md5WithRSA]: 'md5',
  [OID.sha1WithRSA]: 'sha1',
  [OID.sha224WithRSA]: 'sha224',
  [OID.sha256WithRSA]: 'sha256',
  [OID.sha384WithRSA]: 'sha384',
  [OID.sha512WithRSA]: 'sha512',
  [OID.rsaWithSha3_224]: 'sha3-224',
  [OID.rsaWithSha3_256]: 'sha3-256',
  [OID.rsaWithSha3_384]: 'sha3-384',
  [OID.rsaWithSha3_512]: 'sha3-512',
  [OID.ecdsaWithSha1]: 'sha1',
  [OID.ecdsaWithSha224]: 'sha224',
  [OID.ecdsaWithSha256]: 'sha256',
  [OID.ecdsaWithSha384]: 'sha384',
  [OID.ecdsaWithSha512]: 'sha512',
  [OID.ecdsaWithSha3_224]: 'sha3-224',
  [OID.ecdsaWithSha3_256]: 'sha3-256',
  [OID.ecdsaWithSha3_384]: 'sha3-384',
  [OID.ecdsaWithSha3_512]: 'sha3-512',
};

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
