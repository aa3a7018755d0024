/**
 * OCSP messages (RFC 6960): the request for one certificate (§4.1), the response read field by
 * field (§4.2) and checked against the certificate and its issuer: CertID, the signature by the
 * issuer or by a responder it authorised (§4.2.2.2, id-kp-OCSPSigning), the nonce when echoed.
 * Pure: the nonce and the time come in, the HTTP exchange is signing/revocation-client.ts.
 */
import { createHash } from 'node:crypto';
import {
  bytesEqual, children, ctx, decodeOid, DerError, derNull, expectTag, octets, oid, readDerExact, seq, TAG, type Der,
} from '../der/der';
import { readCertificate, readSpkiKeyBits } from '../der/certificate-fields';
import { DIGEST_NAMES, OID } from '../der/oids';
import { decodeTime } from '../der/time';
import { extendedKeyUsages } from '../der/x509-extensions';
import { algorithmOf, verifySignedSequence } from './verify-signature';

/** RFC 6960 §4.2.1 OCSPResponseStatus. */
const RESPONSE_STATUS = ['successful', 'malformedRequest', 'internalError', 'tryLater', '(unused)', 'sigRequired', 'unauthorized'];

export interface OcspSingleResponse {
  hashAlgorithm: string;
  issuerNameHash: Uint8Array;
  issuerKeyHash: Uint8Array;
  serial: Uint8Array;
  status: 'good' | 'revoked' | 'unknown';
  revokedAt: Date | null;
  thisUpdate: Date;
  nextUpdate: Date | null;
}

export interface OcspResponse {
  /** The whole OCSPResponse DER: what the DSS /OCSPs stream holds (ETSI EN 319 142-1 §5.4.2.2). */
  raw: Uint8Array;
  /** BasicOCSPResponse parts: tbsResponseData, signatureAlgorithm, signature. */
  signed: Der[];
  responderByName: Uint8Array | null;
  responderByKey: Uint8Array | null;
  producedAt: Date;
  responses: OcspSingleResponse[];
  nonce: Uint8Array | null;
  certificates: Uint8Array[];
}

function digest(algorithm: string, data: Uint8Array): Uint8Array {
  const name = DIGEST_NAMES[algorithm];
  if (!name) throw new DerError(`OCSP CertID hash algorithm ${algorithm} is not supported`);
  return new Uint8Array(createHash(name).update(data).digest());
}

/** CertID (§4.1.1): hashes of the issuer's Name and of its public key bits, and the serial. */
function certId(certificate: Uint8Array, issuer: Uint8Array, hashAlgorithm: string): Uint8Array {
  const cert = readCertificate(certificate);
  const iss = readCertificate(issuer);
  return seq(
    seq(oid(hashAlgorithm), derNull()),
    octets(digest(hashAlgorithm, iss.subject.raw)),
    octets(digest(hashAlgorithm, readSpkiKeyBits(iss.spki))),
    cert.serial.raw,
  );
}

/**
 * OCSPRequest { tbsRequest { requestList { Request { reqCert } }, requestExtensions [2] { nonce } } }.
 * SHA-1 CertIDs: the hash every responder answers (RFC 5019 §2.1.1 profiles it), used only to match.
 */
export function buildOcspRequest(certificate: Uint8Array, issuer: Uint8Array, nonce: Uint8Array | null): Uint8Array {
  const request = seq(certId(certificate, issuer, OID.sha1));
  // RFC 8954 §2.1: the nonce extension's value is an OCTET STRING holding an OCTET STRING.
  const extensions = nonce ? [ctx(2, seq(seq(oid(OID.ocspNonce), octets(octets(nonce)))))] : [];
  return seq(seq(seq(request), ...extensions));
}

function readSingle(node: Der): OcspSingleResponse {
  const [id, status, thisUpdate, ...rest] = children(expectTag(node, TAG.SEQUENCE, 'SingleResponse'));
  const [alg, nameHash, keyHash, serial] = children(expectTag(id, TAG.SEQUENCE, 'CertID'));
  let state: OcspSingleResponse['status'];
  let revokedAt: Date | null = null;
  // CertStatus ::= CHOICE { good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] IMPLICIT NULL }
  if (status?.tag === 0x80) state = 'good';
  else if (status?.tag === 0xa1) {
    state = 'revoked';
    revokedAt = decodeTime(children(status)[0], 'revocationTime');
  } else if (status?.tag === 0x82) state = 'unknown';
  else throw new DerError('CertStatus is not good, revoked or unknown');
  const next = rest.find((r) => r.tag === 0xa0);
  return {
    hashAlgorithm: algorithmOf(alg, 'CertID.hashAlgorithm'),
    issuerNameHash: expectTag(nameHash, TAG.OCTET_STRING, 'issuerNameHash').content,
    issuerKeyHash: expectTag(keyHash, TAG.OCTET_STRING, 'issuerKeyHash').content,
    serial: expectTag(serial, TAG.INTEGER, 'serialNumber').content,
    status: state,
    revokedAt,
    thisUpdate: decodeTime(thisUpdate, 'thisUpdate'),
    nextUpdate: next ? decodeTime(children(next)[0], 'nextUpdate') : null,
  };
}

function readNonce(extensions: Der | undefined): Uint8Array | null {
  if (!extensions) return null;
  for (const ext of children(children(extensions)[0]!)) {
    const parts = children(ext);
    if (decodeOid(expectTag(parts[0], TAG.OID, 'extnID').content) !== OID.ocspNonce) continue;
    const value = expectTag(parts[parts.length - 1], TAG.OCTET_STRING, 'nonce extnValue').content;
    // Some responders put the bare nonce, others the OCTET STRING the RFC asks for.
    try {
      return expectTag(readDerExact(value), TAG.OCTET_STRING, 'nonce').content;
    } catch {
      return value;
    }
  }
  return null;
}

/** Reads an OCSPResponse; throws DerError naming the status when it is not `successful`. */
export function parseOcspResponse(der: Uint8Array): OcspResponse {
  const top = children(expectTag(readDerExact(der), TAG.SEQUENCE, 'OCSPResponse'));
  const status = expectTag(top[0], 0x0a, 'responseStatus').content[0] ?? 255;
  if (status !== 0) throw new DerError(`the responder answered ${RESPONSE_STATUS[status] ?? `status ${status}`}`);
  const bytes = children(expectTag(children(expectTag(top[1], 0xa0, 'responseBytes'))[0], TAG.SEQUENCE, 'ResponseBytes'));
  const type = decodeOid(expectTag(bytes[0], TAG.OID, 'responseType').content);
  if (type !== OID.ocspBasic) throw new DerError(`response type ${type} is not id-pkix-ocsp-basic`);
  const basic = children(expectTag(readDerExact(expectTag(bytes[1], TAG.OCTET_STRING, 'response').content), TAG.SEQUENCE, 'BasicOCSPResponse'));
  const data = children(expectTag(basic[0], TAG.SEQUENCE, 'ResponseData'));
  let i = data[0]?.tag === 0xa0 ? 1 : 0; // version [0] EXPLICIT DEFAULT v1
  const responder = data[i++]!;
  const producedAt = decodeTime(data[i++], 'producedAt');
  const responses = children(expectTag(data[i++], TAG.SEQUENCE, 'responses')).map(readSingle);
  const certsNode = basic.find((b, k) => k >= 3 && b.tag === 0xa0);
  return {
    raw: der,
    signed: basic.slice(0, 3),
    // ResponderID ::= CHOICE { byName [1] Name, byKey [2] KeyHash } (explicit tags: a CHOICE).
    responderByName: responder.tag === 0xa1 ? children(responder)[0]!.raw : null,
    responderByKey: responder.tag === 0xa2 ? expectTag(children(responder)[0], TAG.OCTET_STRING, 'KeyHash').content : null,
    producedAt,
    responses,
    nonce: readNonce(data.slice(i).find((d) => d.tag === 0xa1)),
    certificates: certsNode ? children(children(certsNode)[0]!).map((c) => c.raw) : [],
  };
}

export interface OcspVerdict {
  status: OcspSingleResponse['status'];
  revokedAt: Date | null;
  thisUpdate: Date;
  nextUpdate: Date | null;
  producedAt: Date;
  /** The certificate that signed the response: the issuer itself or its delegated responder. */
  responder: Uint8Array;
}

function matchesResponderId(response: OcspResponse, cert: Uint8Array): boolean {
  const f = readCertificate(cert);
  if (response.responderByName) return bytesEqual(response.responderByName, f.subject.raw);
  if (response.responderByKey) return bytesEqual(response.responderByKey, digest(OID.sha1, readSpkiKeyBits(f.spki)));
  return false;
}

/**
 * The answer about `certificate` in `response`, checked: a SingleResponse for its CertID, signed by
 * the issuer or by a certificate the issuer issued with id-kp-OCSPSigning (§4.2.2.2), carrying
 * `nonce` when one was sent and echoed. Throws DerError saying what does not hold.
 */
export function checkOcspResponse(response: OcspResponse, certificate: Uint8Array, issuer: Uint8Array, nonce?: Uint8Array | null): OcspVerdict {
  const serial = readCertificate(certificate).serial.content;
  const single = response.responses.find((r) => {
    if (!bytesEqual(r.serial, serial) || !DIGEST_NAMES[r.hashAlgorithm]) return false;
    const iss = readCertificate(issuer);
    return bytesEqual(r.issuerNameHash, digest(r.hashAlgorithm, iss.subject.raw)) && bytesEqual(r.issuerKeyHash, digest(r.hashAlgorithm, readSpkiKeyBits(iss.spki)));
  });
  if (!single) throw new DerError('the response says nothing about this certificate (no matching CertID)');
  if (nonce && response.nonce && !bytesEqual(nonce, response.nonce)) throw new DerError('the response nonce differs from the request nonce');
  const issuerName = readCertificate(issuer).subject.raw;
  const candidates = [issuer, ...response.certificates].filter((c) => {
    try {
      return matchesResponderId(response, c);
    } catch {
      return false;
    }
  });
  for (const candidate of candidates) {
    if (!verifySignedSequence(response.signed, candidate)) continue;
    if (candidate !== issuer && !bytesEqual(candidate, issuer)) {
      // A delegated responder: issued by the CA itself, for OCSP signing (RFC 6960 §4.2.2.2).
      const parts = children(expectTag(readDerExact(candidate), TAG.SEQUENCE, 'Certificate'));
      if (!bytesEqual(readCertificate(candidate).issuer.raw, issuerName) || !verifySignedSequence(parts, issuer)) continue;
      if (!(extendedKeyUsages(candidate) ?? []).includes(OID.kpOcspSigning)) continue;
    }
    return { status: single.status, revokedAt: single.revokedAt, thisUpdate: single.thisUpdate, nextUpdate: single.nextUpdate, producedAt: response.producedAt, responder: candidate };
  }
  throw new DerError('the response is not signed by the issuer or by a responder it authorised for OCSP signing');
}
