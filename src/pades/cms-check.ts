/**
 * A tolerant check of any CMS SignedData a PDF may carry, for local validation: PAdES
 * (ETSI.CAdES.detached), the older adbe.pkcs7.detached (SHA-1 and signing-time allowed), and
 * RFC 3161 tokens (document and signature timestamps). RFC 5652 §5.4: the message-digest
 * attribute equals the digest of the content, and the signature verifies over the DER signed
 * attributes with the signer certificate's key. verify.ts stays the strict check of our own output.
 */
import { createHash, verify as cryptoVerify } from 'node:crypto';
import { bytesEqual, children, concat, decodeOid, expectTag, readDerExact, TAG } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { parseSignedData, readAttributes } from '../der/cms-fields';
import { DIGEST_NAMES, OID, SIGNATURE_DIGESTS } from '../der/oids';
import { decodeTime } from '../der/time';
import { extendedKeyUsages } from '../der/x509-extensions';
import { publicKeyOf } from '../pki/verify-signature';

export interface CmsCheck {
  /** Digest and signature both verify. */
  ok: boolean;
  problems: string[];
  signerCertificate: Uint8Array | null;
  certificates: Uint8Array[];
  digestAlgorithm: string | null;
  signatureValue: Uint8Array | null;
  /** eContent of an attached signature (a timestamp token's TSTInfo). */
  content: Uint8Array | null;
  hasSigningCertificateV2: boolean;
  timestampToken: Uint8Array | null;
}

export function digestWith(algorithm: string, parts: Uint8Array[]): Uint8Array | null {
  const name = DIGEST_NAMES[algorithm];
  if (!name) return null;
  const h = createHash(name);
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/**
 * `digestOf(alg)` gives the digest of the detached content (the ByteRange) under a digest OID;
 * for an attached signature pass null and the eContent is digested.
 */
export function checkCms(cms: Uint8Array, digestOf: ((algorithm: string) => Uint8Array | null) | null): CmsCheck {
  const out: CmsCheck = {
    ok: false, problems: [], signerCertificate: null, certificates: [], digestAlgorithm: null, signatureValue: null, content: null,
    hasSigningCertificateV2: false, timestampToken: null,
  };
  let sd;
  try {
    sd = parseSignedData(cms);
  } catch (e) {
    out.problems.push(`the signature is not a readable CMS SignedData: ${(e as Error).message}`);
    return out;
  }
  out.certificates = sd.certificates;
  out.content = sd.content;
  if (sd.signerInfos.length !== 1) {
    out.problems.push(`expected one SignerInfo, found ${sd.signerInfos.length}`);
    return out;
  }
  const si = sd.signerInfos[0]!;
  out.digestAlgorithm = si.digestAlgorithm;
  out.signatureValue = si.signature;
  out.signerCertificate = sd.certificates.find((c) => {
    try {
      const f = readCertificate(c);
      return bytesEqual(f.issuer.raw, si.issuer) && bytesEqual(f.serial.content, si.serial);
    } catch {
      return false;
    }
  }) ?? null;
  if (!out.signerCertificate) out.problems.push('the signer certificate is not in the signature');
  const content = digestOf ? digestOf(si.digestAlgorithm) : sd.content && digestWith(si.digestAlgorithm, [sd.content]);
  if (!content) out.problems.push(`digest algorithm ${si.digestAlgorithm} is not supported or there is no content`);
  if (!si.signedAttrs) {
    out.problems.push('the SignerInfo has no signed attributes');
    return out;
  }
  const signedAttributes = concat([Uint8Array.of(TAG.SET), si.signedAttrs.raw.subarray(1)]);
  try {
    const attrs = readAttributes(readDerExact(signedAttributes));
    const md = attrs.get(OID.messageDigest)?.[0];
    if (!md || md.tag !== TAG.OCTET_STRING) out.problems.push('the message-digest attribute is missing');
    else if (content && !bytesEqual(md.content, content)) out.problems.push('the document digest does not match: the signed bytes were changed');
    out.hasSigningCertificateV2 = attrs.has(OID.signingCertificateV2);
    if (si.unsignedAttrs) out.timestampToken = readAttributes(si.unsignedAttrs).get(OID.signatureTimeStampToken)?.[0]?.raw ?? null;
  } catch (e) {
    out.problems.push(`the attributes are unreadable: ${(e as Error).message}`);
  }
  const digest = SIGNATURE_DIGESTS[si.signatureAlgorithm] ?? (si.signatureAlgorithm === OID.rsaEncryption ? DIGEST_NAMES[si.digestAlgorithm] : undefined);
  if (!digest) out.problems.push(`signature algorithm ${si.signatureAlgorithm} is not supported`);
  else if (out.signerCertificate) {
    let verified = false;
    try {
      verified = cryptoVerify(digest, signedAttributes, publicKeyOf(out.signerCertificate), si.signature);
    } catch {
      verified = false;
    }
    if (!verified) out.problems.push("the signature value does not verify with the signer certificate's key");
  }
  out.ok = out.problems.length === 0;
  return out;
}

export interface TimestampCheck {
  ok: boolean;
  problems: string[];
  time: Date | null;
  signerCertificate: Uint8Array | null;
  certificates: Uint8Array[];
}

/** An RFC 3161 token (§2.4.2): a valid CMS over TSTInfo whose messageImprint is `imprintOf(alg)`. */
export function checkTimestampToken(token: Uint8Array, imprintOf: (algorithm: string) => Uint8Array | null): TimestampCheck {
  const cms = checkCms(token, null);
  const out: TimestampCheck = { ok: false, problems: [...cms.problems], time: null, signerCertificate: cms.signerCertificate, certificates: cms.certificates };
  if (!cms.content) {
    out.problems.push('the timestamp token holds no TSTInfo');
    return out;
  }
  try {
    const tst = children(expectTag(readDerExact(cms.content), TAG.SEQUENCE, 'TSTInfo'));
    const [alg, hashed] = children(expectTag(tst[2], TAG.SEQUENCE, 'messageImprint'));
    const algorithm = decodeOid(expectTag(children(expectTag(alg, TAG.SEQUENCE, 'hashAlgorithm'))[0], TAG.OID, 'hash OID').content);
    const expected = imprintOf(algorithm);
    if (!expected) out.problems.push(`timestamp imprint algorithm ${algorithm} is not supported`);
    else if (!bytesEqual(expectTag(hashed, TAG.OCTET_STRING, 'hashedMessage').content, expected)) out.problems.push('the timestamp covers other data (message imprint mismatch)');
    out.time = decodeTime(tst[4], 'genTime');
  } catch (e) {
    out.problems.push(`the TSTInfo is unreadable: ${(e as Error).message}`);
  }
  // RFC 3161 §2.3: the TSA certificate carries the sole extended key usage id-kp-timeStamping.
  if (cms.signerCertificate && !(extendedKeyUsages(cms.signerCertificate) ?? []).includes(OID.kpTimeStamping)) {
    out.problems.push('the timestamp signer certificate is not for time-stamping (extendedKeyUsage)');
  }
  out.ok = out.problems.length === 0;
  return out;
}
