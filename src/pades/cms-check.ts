/**
 * A tolerant check of any CMS SignedData a PDF may carry, for local validation: PAdES
 * (ETSI.CAdES.detached), the older adbe.pkcs7.detached (SHA-1, signing-time, no signed
 * attributes allowed) and adbe.pkcs7.sha1, and RFC 3161 tokens (document and signature
 * timestamps). Read as BER (RFC 5652 §1.2: SignedData may be BER; ber.ts), bounded. RFC 5652
 * §5.4: with signed attributes, the message-digest attribute equals the digest of the content
 * and the signature is over the signed attributes, whose encoding must be DER; without them, the
 * signature is over the content itself. verify.ts stays the strict check of our own output.
 */
import { createHash, createVerify, verify as cryptoVerify } from 'node:crypto';
import { derViolation, readBerExact } from '../der/ber';
import { bytesEqual, children, concat, decodeOid, expectTag, readDerExact, TAG } from '../der/der';
import { findSignerCertificate, parseSignedData, readAttributes } from '../der/cms-fields';
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
  /** RFC 5652 §5.2: no eContent, the content is elsewhere (a PDF's /ByteRange). */
  detached: boolean;
  /** RFC 5652 §5.3: the SignerInfo has signed attributes. */
  signedAttributes: boolean;
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

/** True when `whole` is `parts` joined, compared in place (a large document is not copied). */
function sameBytes(whole: Uint8Array, parts: Uint8Array[]): boolean {
  let at = 0;
  for (const p of parts) {
    if (at + p.length > whole.length || !bytesEqual(whole.subarray(at, at + p.length), p)) return false;
    at += p.length;
  }
  return at === whole.length;
}

/**
 * `detached` is the content of a detached signature in pieces (a PDF's two /ByteRange ranges);
 * null for an attached one (a timestamp token), whose eContent is the content. When a PDF's CMS
 * encapsulates its content anyway, that content must be the /ByteRange's bytes, or (ISO 32000-1
 * §12.8.3.3.1, adbe.pkcs7.sha1) their SHA-1 digest.
 */
export function checkCms(cms: Uint8Array, detached: Uint8Array[] | null): CmsCheck {
  const out: CmsCheck = {
    ok: false, problems: [], signerCertificate: null, certificates: [], digestAlgorithm: null, signatureValue: null, content: null,
    detached: false, signedAttributes: false, hasSigningCertificateV2: false, timestampToken: null,
  };
  let sd;
  try {
    sd = parseSignedData(cms, { ber: true });
  } catch (e) {
    out.problems.push(`the signature is not a readable CMS SignedData: ${(e as Error).message}`);
    return out;
  }
  out.certificates = sd.certificates;
  out.content = sd.content;
  out.detached = sd.content === null;
  if (sd.signerInfos.length !== 1) {
    out.problems.push(`expected one SignerInfo, found ${sd.signerInfos.length}`);
    return out;
  }
  const si = sd.signerInfos[0]!;
  out.digestAlgorithm = si.digestAlgorithm;
  out.signatureValue = si.signature;
  out.signedAttributes = si.signedAttrs !== null;
  out.signerCertificate = findSignerCertificate(sd.certificates, si);
  if (!out.signerCertificate) out.problems.push('the signer certificate is not in the signature');
  // RFC 5652 §5.4: what was signed is the eContent when there is one, else the detached content.
  const signed = sd.content ? [sd.content] : detached;
  if (sd.content && detached && !sameBytes(sd.content, detached)) {
    const sha1 = digestWith(OID.sha1, detached)!;
    if (!bytesEqual(sd.content, sha1)) out.problems.push('the encapsulated content is not the signed byte range');
  }
  const digest = SIGNATURE_DIGESTS[si.signatureAlgorithm] ?? (si.signatureAlgorithm === OID.rsaEncryption ? DIGEST_NAMES[si.digestAlgorithm] : undefined);
  if (!digest) out.problems.push(`signature algorithm ${si.signatureAlgorithm} is not supported`);
  if (!si.signedAttrs) {
    // RFC 5652 §5.4/§5.6: no signed attributes, the signature is over the content's digest itself.
    if (!signed) out.problems.push('there is no content to check the signature against');
    else if (digest && out.signerCertificate && !verifies(digest, signed, out.signerCertificate, si.signature)) {
      out.problems.push("the signature value does not verify with the signer certificate's key");
    }
    out.ok = out.problems.length === 0;
    return out;
  }
  const contentDigest = signed && digestWith(si.digestAlgorithm, signed);
  if (!contentDigest) out.problems.push(`digest algorithm ${si.digestAlgorithm} is not supported or there is no content`);
  // RFC 5652 §5.4: the signature covers the DER encoding of the SET OF signed attributes (tag
  // 0x31, not the [0] they are stored under). Hashed as stored; stored other than DER, the
  // digest is invalid, as DSS judges it, whatever the signature says.
  const signedAttributes = concat([Uint8Array.of(TAG.SET), si.signedAttrs.raw.subarray(1)]);
  try {
    const notDer = derViolation(signedAttributes);
    if (notDer) out.problems.push(`signed attributes not DER-encoded: ${notDer}`);
    const attrs = readAttributes(readBerExact(signedAttributes));
    const md = attrs.get(OID.messageDigest)?.[0];
    if (!md || md.tag !== TAG.OCTET_STRING) out.problems.push('the message-digest attribute is missing');
    else if (contentDigest && !bytesEqual(md.content, contentDigest)) out.problems.push('the document digest does not match: the signed bytes were changed');
    out.hasSigningCertificateV2 = attrs.has(OID.signingCertificateV2);
    if (si.unsignedAttrs) out.timestampToken = readAttributes(si.unsignedAttrs).get(OID.signatureTimeStampToken)?.[0]?.raw ?? null;
  } catch (e) {
    out.problems.push(`the attributes are unreadable: ${(e as Error).message}`);
  }
  if (digest && out.signerCertificate && !verifies(digest, [signedAttributes], out.signerCertificate, si.signature)) {
    out.problems.push("the signature value does not verify with the signer certificate's key");
  }
  out.ok = out.problems.length === 0;
  return out;
}

/** The signature over `parts` (fed in order, never joined) with the certificate's key. */
function verifies(digest: string, parts: Uint8Array[], certificate: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (parts.length === 1) return cryptoVerify(digest, parts[0]!, publicKeyOf(certificate), signature);
    const v = createVerify(digest);
    for (const p of parts) v.update(p);
    return v.verify(publicKeyOf(certificate), signature);
  } catch {
    return false;
  }
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
