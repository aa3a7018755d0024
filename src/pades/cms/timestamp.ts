/**
 * RFC 3161 time-stamp protocol messages for PAdES B-T (ETSI EN 319 142-1 §6.3: the signature
 * time-stamp is taken over the SignerInfo signature value, RFC 3161 Appendix A). Pure byte work:
 * the nonce is passed in and the HTTP exchange lives in signing/tsa-client.ts.
 */
import { createHash } from 'node:crypto';
import { PlatformError } from '../../domain/errors';
import {
  bool, bytesEqual, children, derNull, expectTag, integerValue, oid, octets, readDerExact, seq, TAG, toHex, uint, type Der,
} from '../../der/der';
import { parseSignedData } from '../../der/cms-fields';
import { OID } from '../../der/oids';
import { readTstInfo } from '../../der/tst-info';

/** RFC 3161 §2.4.2 PKIStatus values. */
const STATUS_NAMES = ['granted', 'grantedWithMods', 'rejection', 'waiting', 'revocationWarning', 'revocationNotification'];
/** RFC 3161 §2.4.2 PKIFailureInfo bit names by bit number. */
const FAILURE_BITS: Record<number, string> = {
  0: 'badAlg', 2: 'badRequest', 5: 'badDataFormat', 14: 'timeNotAvailable', 15: 'unacceptedPolicy',
  16: 'unacceptedExtension', 17: 'addInfoNotAvailable', 25: 'systemFailure',
};

export function buildTimestampRequest(signatureValue: Uint8Array, nonce: bigint): Uint8Array {
  return buildTimestampRequestForImprint(new Uint8Array(createHash('sha256').update(signatureValue).digest()), nonce);
}

/** The same request over a SHA-256 already made (a document timestamp's ByteRange digest, ETSI EN 319 142-1 §5.4.3). */
export function buildTimestampRequestForImprint(imprint: Uint8Array, nonce: bigint): Uint8Array {
  if (nonce < 0n) throw new RangeError('nonce must be non-negative');
  if (imprint.length !== 32) throw new RangeError('a SHA-256 imprint is 32 bytes');
  // sha256 with NULL parameters: RFC 5754 §2 lets verifiers accept both forms, and several deployed
  // TSAs compare the AlgorithmIdentifier bytes against the form openssl ts -query sends (with NULL).
  return seq(
    uint(1),
    seq(seq(oid(OID.sha256), derNull()), octets(imprint)),
    uint(nonce),
    bool(true), // certReq: the TSA certificate goes into the token so verifiers can find it
  );
}

function failureInfo(bits: Uint8Array | undefined): string {
  if (!bits || bits.length < 2) return '';
  const names: string[] = [];
  for (let bit = 0; bit < (bits.length - 1) * 8; bit++) {
    if ((bits[1 + (bit >> 3)]! >> (7 - (bit & 7))) & 1) names.push(FAILURE_BITS[bit] ?? `bit ${bit}`);
  }
  return names.length ? ` (failInfo: ${names.join(', ')})` : '';
}

function freeText(node: Der | undefined): string {
  if (!node || node.tag !== TAG.SEQUENCE) return '';
  const texts = children(node).map((t) => Buffer.from(t.content).toString('utf8'));
  return texts.length ? `: ${texts.join('; ')}` : '';
}

export function parseTimestampResponse(der: Uint8Array, expected: { imprint: Uint8Array; nonce: bigint }): Uint8Array {
  let resp;
  try {
    resp = children(expectTag(readDerExact(der), TAG.SEQUENCE, 'TimeStampResp'));
  } catch (e) {
    throw new PlatformError(`timestamp authority reply is not a DER TimeStampResp: ${(e as Error).message}`, { cause: e });
  }
  const info = resp[0]?.tag === TAG.SEQUENCE ? children(resp[0]) : [];
  const statusNode = info[0];
  if (!statusNode || statusNode.tag !== TAG.INTEGER) throw new PlatformError('timestamp authority reply has no PKIStatus');
  const status = Number(integerValue(statusNode.content));
  if (status !== 0 && status !== 1) {
    const rest = info.slice(1);
    const text = freeText(rest.find((n) => n.tag === TAG.SEQUENCE));
    const fail = failureInfo(rest.find((n) => n.tag === TAG.BIT_STRING)?.content);
    throw new PlatformError(`timestamp authority refused the request: status ${STATUS_NAMES[status] ?? status}${text}${fail}`);
  }
  const token = resp[1];
  if (!token) throw new PlatformError('timestamp authority granted the request but sent no token');
  try {
    checkToken(token.raw, expected);
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    throw new PlatformError(`timestamp token is malformed: ${(e as Error).message}`, { cause: e });
  }
  return Uint8Array.from(token.raw);
}

/** RFC 3161 §2.4.2: a token whose TSTInfo (der/tst-info.ts) covers `expected.imprint` with SHA-256 and echoes the nonce. */
function checkToken(token: Uint8Array, expected: { imprint: Uint8Array; nonce: bigint }): void {
  const sd = parseSignedData(token);
  if (sd.contentType !== OID.tstInfo || !sd.content) {
    throw new PlatformError(`timestamp token does not hold a TSTInfo (content type ${sd.contentType})`);
  }
  const tst = readTstInfo(sd.content);
  if (tst.hashAlgorithm !== OID.sha256) throw new PlatformError(`timestamp token imprint uses ${tst.hashAlgorithm}, not SHA-256`);
  if (!bytesEqual(tst.hashedMessage, expected.imprint)) {
    throw new PlatformError(`timestamp token covers another value (imprint ${toHex(tst.hashedMessage)}, expected ${toHex(expected.imprint)})`);
  }
  if (tst.nonce !== expected.nonce) {
    throw new PlatformError(`timestamp token nonce ${tst.nonce ?? 'missing'} does not match the request nonce ${expected.nonce}`);
  }
}
