/**
 * The one reader of an RFC 3161 TSTInfo (§2.4.2), the eContent of a timestamp token: for the
 * check of a token a TSA just sent (pades/cms/timestamp.ts) and for validation of any token a PDF
 * carries (pades/cms/cms-check.ts). Throws DerError on a structure it cannot read.
 *
 * TSTInfo ::= SEQUENCE { version, policy, messageImprint, serialNumber, genTime GeneralizedTime,
 *   accuracy Accuracy OPTIONAL, ordering BOOLEAN DEFAULT FALSE, nonce INTEGER OPTIONAL,
 *   tsa [0] GeneralName OPTIONAL, extensions [1] IMPLICIT Extensions OPTIONAL }
 */
import { children, decodeOid, expectTag, integerValue, readDerExact, TAG } from './der';
import { decodeTime } from './time';

export interface TstInfo {
  /** messageImprint.hashAlgorithm, as an OID. */
  hashAlgorithm: string;
  /** messageImprint.hashedMessage. */
  hashedMessage: Uint8Array;
  genTime: Date;
  /** The nonce of the request it answers, or null when it carries none. */
  nonce: bigint | null;
}

/** `content` is the token's eContent octets (the DER TSTInfo). */
export function readTstInfo(content: Uint8Array): TstInfo {
  const tst = children(expectTag(readDerExact(content), TAG.SEQUENCE, 'TSTInfo'));
  const [hashAlg, hashed] = children(expectTag(tst[2], TAG.SEQUENCE, 'messageImprint'));
  const hashAlgorithm = decodeOid(expectTag(children(expectTag(hashAlg, TAG.SEQUENCE, 'hashAlgorithm'))[0], TAG.OID, 'hash OID').content);
  const hashedMessage = expectTag(hashed, TAG.OCTET_STRING, 'hashedMessage').content;
  // §2.4.2: genTime is a GeneralizedTime (never UTCTime), read as a UTC date.
  const genTime = decodeTime(expectTag(tst[4], TAG.GENERALIZED_TIME, 'genTime'), 'genTime');
  let i = 5;
  if (tst[i]?.tag === TAG.SEQUENCE) i++; // accuracy
  if (tst[i]?.tag === TAG.BOOLEAN) i++; // ordering
  const nonce = tst[i]?.tag === TAG.INTEGER ? integerValue(tst[i]!.content) : null;
  return { hashAlgorithm, hashedMessage, genTime, nonce };
}
