/**
 * The one check of a CMS SignedData (RFC 5652 §5.4, §5.6). Of any CMS a PDF may carry, for local
 * validation: PAdES (ETSI.CAdES.detached), the older adbe.pkcs7.detached (SHA-1, signing-time, no
 * signed attributes allowed) and adbe.pkcs7.sha1, and RFC 3161 tokens (document and signature
 * timestamps), read as BER (RFC 5652 §1.2: SignedData may be BER; ber.ts), bounded. With signed
 * attributes, the message-digest attribute equals the digest of the content and the signature is
 * over the signed attributes, whose encoding must be DER; without them, the signature is over the
 * content itself. And of our own output before a request is DONE (`ownOutput`, verify.ts): every
 * one of those checks, and the profile cms.ts builds on top (verifyCmsSignature).
 */
import { createHash } from 'node:crypto';
import { SigningError } from '../../domain/errors';
import { derViolation, readBerExact } from '../../der/ber';
import { bytesEqual, children, concat, decodeOid, expectTag, integerValue, TAG, type Der } from '../../der/der';
import { certificateDerViolation } from '../../der/certificate-fields';
import { findSignerCertificate, parseSignedData, readAttributes, readRevocationArchival, type RevocationInfo } from '../../der/cms-fields';
import { DIGEST_LABELS, DIGEST_NAMES, OID } from '../../der/oids';
import { readTstInfo } from '../../der/tst-info';
import { extendedKeyUsages } from '../../der/x509-extensions';
import { describeKey, publicKeyOf } from '../../pki/verify-signature';
import { signatureScheme, verifyWithScheme, type SignatureScheme } from '../../pki/signature-scheme';
import { algorithmOfCertificate } from './cms';

export interface CmsCheck {
  /** Digest and signature both verify (and, for `ownOutput`, the profile holds). */
  ok: boolean;
  problems: string[];
  signerCertificate: Uint8Array | null;
  certificates: Uint8Array[];
  digestAlgorithm: string | null;
  signatureValue: Uint8Array | null;
  /** eContentType (RFC 5652 §5.2); null when the SignedData does not read. */
  contentType: string | null;
  /** eContent of an attached signature (a timestamp token's TSTInfo). */
  content: Uint8Array | null;
  /** RFC 5652 §5.2: no eContent, the content is elsewhere (a PDF's /ByteRange). */
  detached: boolean;
  /** RFC 5652 §5.3: the SignerInfo has signed attributes. */
  signedAttributes: boolean;
  /** The signed attributes as the signature covers them: their SET OF (tag 0x31), as stored. */
  signedAttributesSet: Uint8Array | null;
  hasSigningCertificateV2: boolean;
  timestampToken: Uint8Array | null;
  /** The signer's algorithms as reports name them (null where the CMS does not say or read). */
  algorithms: { digest: string | null; signature: string | null; key: string | null };
  /** CRLs and OCSP responses the CMS carries: its `crls` field (RFC 5652 §10.2.1) and the adbe-revocationInfoArchival signed attribute. */
  revocation: RevocationInfo;
}

/**
 * The content of a detached signature: in pieces (a PDF's two /ByteRange ranges), or its digest
 * made already (our own signature's /ByteRange digest, verify.ts).
 */
export type DetachedContent = Uint8Array[] | { digestAlgorithm: string; digest: Uint8Array };

export interface CmsCheckOptions {
  /**
   * A CMS of ours (cms.ts assembleCms; ETSI EN 319 142-1 §6.3 B-B, RFC 5035 §5.4): on top of
   * every check of any CMS, DER throughout, detached, a SHA-256 digest, signed attributes with
   * content-type id-data and an ESS signing-certificate-v2 naming the signer, and a signature
   * algorithm that fits the signer's key.
   */
  ownOutput?: boolean;
}

export function digestWith(algorithm: string, parts: Uint8Array[]): Uint8Array | null {
  const name = DIGEST_NAMES[algorithm];
  if (!name) return null;
  // SHAKE256 in CMS gives 512 bits (RFC 8419 §2.3, RFC 8702 §2).
  const h = name === 'shake256' ? createHash(name, { outputLength: 64 }) : createHash(name);
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
 * `detached` is the content of a detached signature (DetachedContent); null for an attached one
 * (a timestamp token), whose eContent is the content. When a PDF's CMS encapsulates its content
 * anyway, that content must be the /ByteRange's bytes, or (ISO 32000-1 §12.8.3.3.1,
 * adbe.pkcs7.sha1) their SHA-1 digest.
 */
export function checkCms(cms: Uint8Array, detached: DetachedContent | null, options: CmsCheckOptions = {}): CmsCheck {
  const own = options.ownOutput === true;
  const out: CmsCheck = {
    ok: false, problems: [], signerCertificate: null, certificates: [], digestAlgorithm: null, signatureValue: null, contentType: null, content: null,
    detached: false, signedAttributes: false, signedAttributesSet: null, hasSigningCertificateV2: false, timestampToken: null, revocation: { crls: [], ocsps: [] },
    algorithms: { digest: null, signature: null, key: null },
  };
  let sd;
  try {
    // What we write is DER (der.ts); BER is for a CMS from elsewhere.
    sd = parseSignedData(cms, { ber: !own });
  } catch (e) {
    out.problems.push(`the signature is not a readable CMS SignedData: ${(e as Error).message}`);
    return out;
  }
  out.certificates = sd.certificates;
  out.revocation = { crls: [...sd.revocation.crls], ocsps: [...sd.revocation.ocsps] };
  out.contentType = sd.contentType;
  out.content = sd.content;
  out.detached = sd.content === null;
  // ETSI EN 319 142-1 §6.2.1: ours is detached.
  if (own && sd.content) out.problems.push('the signature is not detached (eContent present)');
  if (sd.signerInfos.length !== 1) {
    out.problems.push(`expected one SignerInfo, found ${sd.signerInfos.length}`);
    return out;
  }
  const si = sd.signerInfos[0]!;
  out.digestAlgorithm = si.digestAlgorithm;
  out.signatureValue = si.signature;
  out.signedAttributes = si.signedAttrs !== null;
  if (own && si.digestAlgorithm !== OID.sha256) out.problems.push(`digest algorithm ${si.digestAlgorithm} is not SHA-256`);
  out.signerCertificate = findSignerCertificate(sd.certificates, si);
  if (!out.signerCertificate) out.problems.push('the signer certificate is not in the signature');
  else {
    // RFC 5280 §4.1: openssl, pdfsig and EU DSS refuse a signer certificate that is not DER.
    const notDer = certificateDerViolation(out.signerCertificate);
    if (notDer) out.problems.push(`the signer certificate is not DER (RFC 5280 §4.1): ${notDer}`);
    if (own) out.problems.push(...keyProblems(si.signatureAlgorithm, out.signerCertificate));
  }
  // RFC 5652 §5.4: what was signed is the eContent when there is one, else the detached content.
  const parts = Array.isArray(detached) ? detached : null;
  const made = detached && !Array.isArray(detached) ? detached : null;
  const signed = sd.content ? [sd.content] : parts;
  if (sd.content && parts && !sameBytes(sd.content, parts)) {
    const sha1 = digestWith(OID.sha1, parts)!;
    if (!bytesEqual(sd.content, sha1)) out.problems.push('the encapsulated content is not the signed byte range');
  }
  if (sd.content && made && !bytesEqual(digestWith(made.digestAlgorithm, [sd.content]) ?? new Uint8Array(0), made.digest)) {
    out.problems.push('the encapsulated content is not the signed byte range');
  }
  const digestName = DIGEST_NAMES[si.digestAlgorithm];
  out.algorithms = { digest: digestName ? (DIGEST_LABELS[digestName] ?? digestName) : si.digestAlgorithm, signature: null, key: out.signerCertificate ? describeKey(out.signerCertificate) : null };
  let scheme: SignatureScheme | null = null;
  try {
    scheme = signatureScheme(si.signatureAlgorithmId, si.digestAlgorithm);
    out.algorithms.signature = scheme.name;
  } catch (e) {
    out.problems.push((e as Error).message);
  }
  const shakeLength = shakeOutputProblem(si.digestAlgorithmId);
  if (shakeLength) out.problems.push(shakeLength);
  /** What the signature value is over (RFC 5652 §5.4); null when it cannot be checked. */
  let signatureInput: Uint8Array[] | null = null;
  if (!si.signedAttrs) {
    // RFC 5652 §5.4/§5.6: no signed attributes, the signature is over the content's digest itself.
    if (own) out.problems.push('SignerInfo has no signed attributes');
    else if (!signed) out.problems.push('there is no content to check the signature against');
    else signatureInput = signed;
  } else {
    const contentDigest = signed ? digestWith(si.digestAlgorithm, signed) : made && made.digestAlgorithm === si.digestAlgorithm ? made.digest : null;
    if (!contentDigest) out.problems.push(`digest algorithm ${si.digestAlgorithm} is not supported or there is no content`);
    // RFC 5652 §5.4: the signature covers the DER encoding of the SET OF signed attributes (tag
    // 0x31, not the [0] they are stored under). Hashed as stored; stored other than DER, the
    // digest is invalid, as DSS judges it, whatever the signature says.
    const signedAttributes = concat([Uint8Array.of(TAG.SET), si.signedAttrs.raw.subarray(1)]);
    out.signedAttributesSet = signedAttributes;
    try {
      const notDer = derViolation(signedAttributes);
      if (notDer) out.problems.push(`signed attributes not DER-encoded: ${notDer}`);
      const attrs = readAttributes(readBerExact(signedAttributes));
      const md = attrs.get(OID.messageDigest)?.[0];
      if (!md || md.tag !== TAG.OCTET_STRING) out.problems.push('the message-digest attribute is missing');
      else if (contentDigest && !bytesEqual(md.content, contentDigest)) out.problems.push('the document digest does not match: the signed bytes were changed');
      out.hasSigningCertificateV2 = attrs.has(OID.signingCertificateV2);
      const archival = attrs.get(OID.adbeRevocationInfoArchival)?.[0];
      if (archival) archivedRevocation(archival, out.revocation);
      if (own) out.problems.push(...ownAttributeProblems(attrs, out.signerCertificate));
      if (si.unsignedAttrs) out.timestampToken = readAttributes(si.unsignedAttrs).get(OID.signatureTimeStampToken)?.[0]?.raw ?? null;
    } catch (e) {
      out.problems.push(`the attributes are unreadable: ${(e as Error).message}`);
    }
    signatureInput = [signedAttributes];
  }
  if (signatureInput && scheme && out.signerCertificate && !verifies(scheme, signatureInput, out.signerCertificate, si.signature)) {
    out.problems.push("the signature value does not verify with the signer certificate's key");
  }
  out.ok = out.problems.length === 0;
  return out;
}

/** The archival attribute's CRLs and OCSP responses added to `into`; one that does not read adds nothing (what it would prove stays unproven). */
function archivedRevocation(value: Der, into: RevocationInfo): void {
  try {
    const info = readRevocationArchival(value);
    into.crls.push(...info.crls);
    into.ocsps.push(...info.ocsps);
  } catch {
    // left out: revocation.ts names the status it could not determine
  }
}

/** Ours: RSA PKCS#1 v1.5 or ECDSA P-256, each with SHA-256 (cms.ts assembleCms). */
function keyProblems(signatureAlgorithm: string, signer: Uint8Array): string[] {
  let key;
  try {
    key = algorithmOfCertificate(signer);
  } catch (e) {
    return [(e as Error).message];
  }
  const fits: string[] = key === 'rsa' ? [OID.rsaEncryption, OID.sha256WithRSA] : [OID.ecdsaWithSha256];
  return fits.includes(signatureAlgorithm) ? [] : [`signature algorithm ${signatureAlgorithm} does not fit the ${key} key`];
}

/**
 * Ours (cms.ts buildSignedAttributes): content-type id-data, and the ESS signing-certificate-v2
 * (RFC 5035 §5.4) whose first ESSCertIDv2 is the signer's SHA-256 (the DEFAULT when absent).
 */
function ownAttributeProblems(attrs: Map<string, Der[]>, signer: Uint8Array | null): string[] {
  const problems: string[] = [];
  const ct = attrs.get(OID.contentType)?.[0];
  if (!ct || ct.tag !== TAG.OID || decodeOid(ct.content) !== OID.data) problems.push('content-type attribute is missing or not id-data');
  const value = attrs.get(OID.signingCertificateV2)?.[0];
  if (!value) return [...problems, 'ESS signing-certificate-v2 attribute is missing'];
  if (!signer) return problems;
  try {
    const certs = children(expectTag(children(expectTag(value, TAG.SEQUENCE, 'SigningCertificateV2'))[0], TAG.SEQUENCE, 'certs'));
    const id = children(expectTag(certs[0], TAG.SEQUENCE, 'ESSCertIDv2'));
    let i = 0;
    let algorithm: string = OID.sha256;
    if (id[0]?.tag === TAG.SEQUENCE) {
      algorithm = decodeOid(expectTag(children(id[0])[0], TAG.OID, 'hashAlgorithm').content);
      i = 1;
    }
    if (algorithm !== OID.sha256) problems.push(`ESS certHash algorithm ${algorithm} is not SHA-256`);
    else if (!bytesEqual(expectTag(id[i], TAG.OCTET_STRING, 'certHash').content, digestWith(OID.sha256, [signer])!)) {
      problems.push('ESS signing-certificate-v2 certHash does not match the signer certificate');
    }
  } catch (e) {
    problems.push(`ESS signing-certificate-v2 unreadable: ${(e as Error).message}`);
  }
  return problems;
}

/**
 * Our own CMS before its request is DONE (verify.ts; CONTRACT "Result semantics"): checkCms with
 * `ownOutput` against the SHA-256 of the /ByteRange, any problem a SigningError.
 */
export function verifyCmsSignature(
  cms: Uint8Array,
  documentDigest: Uint8Array,
): { signerCertificate: Uint8Array; signedAttributes: Uint8Array; signatureValue: Uint8Array; timestampToken: Uint8Array | null } {
  const c = checkCms(cms, { digestAlgorithm: OID.sha256, digest: documentDigest }, { ownOutput: true });
  const { signerCertificate, signedAttributesSet, signatureValue } = c;
  if (!c.ok || !signerCertificate || !signedAttributesSet || !signatureValue) throw new SigningError(`CMS check failed: ${c.problems.join('; ')}`);
  return { signerCertificate, signedAttributes: signedAttributesSet, signatureValue, timestampToken: c.timestampToken };
}

/** The signature over `parts` (fed in order; joined only for EdDSA) with the certificate's key. */
function verifies(scheme: SignatureScheme, parts: Uint8Array[], certificate: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verifyWithScheme(scheme, parts, publicKeyOf(certificate), signature);
  } catch {
    return false;
  }
}

/** RFC 8419 §2.3: id-shake256-len carries the output length in bits, which CMS fixes at 512. */
function shakeOutputProblem(digestAlgorithm: Der): string | null {
  const [id, length] = children(digestAlgorithm);
  if (!id || decodeOid(id.content) !== OID.shake256Len) return null;
  if (length?.tag === TAG.INTEGER && integerValue(length.content) === 512n) return null;
  return 'id-shake256-len without its output length of 512 bits (RFC 8419 §2.3)';
}

export interface TimestampCheck {
  ok: boolean;
  problems: string[];
  time: Date | null;
  signerCertificate: Uint8Array | null;
  certificates: Uint8Array[];
  revocation: RevocationInfo;
  algorithms: CmsCheck['algorithms'];
}

/** An RFC 3161 token (§2.4.2): a valid CMS over TSTInfo whose messageImprint is `imprintOf(alg)`. */
export function checkTimestampToken(token: Uint8Array, imprintOf: (algorithm: string) => Uint8Array | null): TimestampCheck {
  const cms = checkCms(token, null);
  const out: TimestampCheck = { ok: false, problems: [...cms.problems], time: null, signerCertificate: cms.signerCertificate, certificates: cms.certificates, revocation: cms.revocation, algorithms: cms.algorithms };
  if (!cms.content) {
    out.problems.push('the timestamp token holds no TSTInfo');
    return out;
  }
  // RFC 3161 §2.4.2: eContentType id-ct-TSTInfo, eContent the DER TSTInfo (der/tst-info.ts).
  if (cms.contentType !== OID.tstInfo) out.problems.push(`the timestamp token holds ${cms.contentType}, not a TSTInfo`);
  try {
    const tst = readTstInfo(cms.content);
    const expected = imprintOf(tst.hashAlgorithm);
    if (!expected) out.problems.push(`timestamp imprint algorithm ${tst.hashAlgorithm} is not supported`);
    else if (!bytesEqual(tst.hashedMessage, expected)) out.problems.push('the timestamp covers other data (message imprint mismatch)');
    out.time = tst.genTime;
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
