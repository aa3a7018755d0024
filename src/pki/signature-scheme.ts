/**
 * Signature algorithms as an AlgorithmIdentifier names them, for certificates, CRLs, OCSP
 * responses and CMS signers alike: RSA PKCS#1 v1.5 and ECDSA with SHA-1, SHA-2 and SHA-3
 * (RFC 4055, RFC 5758, NIST CSOR), RSASSA-PSS with its parameters (RFC 4055 §3.1: hash, MGF1 with
 * the same hash, salt length, trailer field 1), and EdDSA (RFC 8410, in CMS RFC 8419: Ed25519
 * over SHA-512, Ed448 over SHAKE256 with 512 bits as its digest algorithm). What is not
 * supported is refused with the reason: DSA, the SHAKE variants of PSS and ECDSA (RFC 8702), an
 * MGF1 hash other than the signature's. node:crypto verifies each.
 */
import { constants, createVerify, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { children, decodeOid, DerError, expectTag, TAG, type Der } from '../der/der';
import { DIGEST_LABELS, DIGEST_NAMES, OID, SIGNATURE_DIGESTS } from '../der/oids';

export interface SignatureScheme {
  /** How reports name it: "ECDSA with SHA-256", "RSASSA-PSS with SHA-256", "Ed448". */
  name: string;
  /** node:crypto's digest for hash-then-sign schemes; null for EdDSA, which signs the message itself. */
  hash: string | null;
  /** RSASSA-PSS salt length in bytes. */
  pssSaltLength?: number;
}

/** RFC 5652 §5.3: what a CMS signer's digestAlgorithm must be for EdDSA (RFC 8419 §3.1). */
const EDDSA_CMS_DIGESTS: Record<string, string[]> = { [OID.ed25519]: [OID.sha512], [OID.ed448]: [OID.shake256Len, OID.shake256] };

const label = (hash: string): string => DIGEST_LABELS[hash] ?? hash;

const ECDSA = new Set<string>([
  OID.ecdsaWithSha1, OID.ecdsaWithSha224, OID.ecdsaWithSha256, OID.ecdsaWithSha384, OID.ecdsaWithSha512,
  OID.ecdsaWithSha3_224, OID.ecdsaWithSha3_256, OID.ecdsaWithSha3_384, OID.ecdsaWithSha3_512,
]);

/** DSA with SHA-1 (RFC 3279), SHA-2 and SHA-3 (NIST CSOR 2.16.840.1.101.3.4.3.1-8): refused by name, as Chromium does. */
export const isDsaSignature = (oid: string): boolean => oid === '1.2.840.10040.4.3' || /^2\.16\.840\.1\.101\.3\.4\.3\.[1-8]$/.test(oid);

function algorithmParts(node: Der, what: string): { oid: string; params: Der | undefined } {
  const [id, params] = children(expectTag(node, TAG.SEQUENCE, what));
  return { oid: decodeOid(expectTag(id, TAG.OID, `${what} OID`).content), params };
}

/** A hash AlgorithmIdentifier as a node:crypto name; SHAKE is no PSS or MGF1 hash here. */
function hashOf(node: Der | undefined, what: string): string {
  const { oid } = algorithmParts(node!, what);
  const name = DIGEST_NAMES[oid];
  if (!name || name === 'shake256') throw new DerError(`${what} ${oid} is not supported`);
  return name;
}

/** RSASSA-PSS-params (RFC 4055 §3.1), every field explicitly tagged and DEFAULTed to SHA-1 / MGF1-SHA-1 / 20 / 1. */
function pssScheme(params: Der | undefined): SignatureScheme {
  let hash = 'sha1';
  let mgfHash = 'sha1';
  let salt = 20;
  if (params && params.tag !== TAG.NULL) {
    for (const field of children(expectTag(params, TAG.SEQUENCE, 'RSASSA-PSS-params'))) {
      const inner = children(field)[0];
      if (field.tag === 0xa0) hash = hashOf(inner, 'PSS hashAlgorithm');
      else if (field.tag === 0xa1) {
        const mgf = algorithmParts(inner!, 'PSS maskGenAlgorithm');
        if (mgf.oid !== OID.mgf1) throw new DerError(`PSS mask generation ${mgf.oid} is not MGF1`);
        mgfHash = hashOf(mgf.params, 'MGF1 hash');
      } else if (field.tag === 0xa2) {
        const n = expectTag(inner, TAG.INTEGER, 'PSS saltLength').content;
        if (n.length > 2 || (n[0]! & 0x80) !== 0) throw new DerError('PSS saltLength is out of range');
        salt = n.reduce((v, b) => v * 256 + b, 0);
      } else if (field.tag === 0xa3) {
        const t = expectTag(inner, TAG.INTEGER, 'PSS trailerField').content;
        if (t.length !== 1 || t[0] !== 1) throw new DerError('PSS trailerField is not 1 (RFC 4055 §3.1)');
      } else throw new DerError(`RSASSA-PSS-params: unexpected tag 0x${field.tag.toString(16)}`);
    }
  }
  // node:crypto (OpenSSL) masks with the signature's hash; RFC 4055 §3.1 recommends the same.
  if (mgfHash !== hash) throw new DerError(`RSASSA-PSS with MGF1 over ${label(mgfHash)} and ${label(hash)} is not supported`);
  return { name: `RSASSA-PSS with ${label(hash)}`, hash, pssSaltLength: salt };
}

/**
 * The scheme `algorithm` names. `cmsDigest` is a CMS signer's digestAlgorithm OID: with the
 * generic rsaEncryption (or, as some tools write, id-ecPublicKey) it is the hash (RFC 5652 §5.4);
 * with EdDSA it must be the one RFC 8419 fixes. Throws DerError saying why it is not supported.
 */
export function signatureScheme(algorithm: Der, cmsDigest?: string): SignatureScheme {
  const { oid, params } = algorithmParts(algorithm, 'signatureAlgorithm');
  const fixed = SIGNATURE_DIGESTS[oid];
  if (fixed) return { name: `${ECDSA.has(oid) ? 'ECDSA' : 'RSA'} with ${label(fixed)}`, hash: fixed };
  if (oid === OID.rsaEncryption || oid === OID.ecPublicKey) {
    const hash = cmsDigest ? DIGEST_NAMES[cmsDigest] : undefined;
    if (!hash || hash === 'shake256') throw new DerError(`signature algorithm ${oid} with digest ${cmsDigest ?? '(none)'} is not supported`);
    return { name: `${oid === OID.rsaEncryption ? 'RSA' : 'ECDSA'} with ${label(hash)}`, hash };
  }
  if (oid === OID.rsassaPss) return pssScheme(params);
  if (oid === OID.ed25519 || oid === OID.ed448) {
    const name = oid === OID.ed25519 ? 'Ed25519' : 'Ed448';
    if (cmsDigest && !EDDSA_CMS_DIGESTS[oid]!.includes(cmsDigest)) throw new DerError(`${name} in CMS takes ${oid === OID.ed25519 ? 'SHA-512' : 'SHAKE256'} as its digest algorithm (RFC 8419 §3.1), not ${cmsDigest}`);
    return { name, hash: null };
  }
  if (isDsaSignature(oid)) throw new DerError('DSA signatures are not supported');
  if (oid === OID.rsassaPssShake256 || oid === OID.ecdsaWithShake256) throw new DerError(`signature algorithm ${oid} (RFC 8702, with SHAKE256) is not supported`);
  throw new DerError(`signature algorithm ${oid} is not supported`);
}

/** `signature` over `parts` (fed in order) with `key` under `scheme`; false when it does not verify. */
export function verifyWithScheme(scheme: SignatureScheme, parts: Uint8Array[], key: KeyObject, signature: Uint8Array): boolean {
  const keyInput = scheme.pssSaltLength !== undefined ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: scheme.pssSaltLength } : key;
  try {
    // EdDSA (RFC 8032) takes the whole message at once.
    if (scheme.hash === null) return cryptoVerify(null, parts.length === 1 ? parts[0]! : Buffer.concat(parts), key, signature);
    if (parts.length === 1) return cryptoVerify(scheme.hash, parts[0]!, keyInput, signature);
    const v = createVerify(scheme.hash);
    for (const p of parts) v.update(p);
    return v.verify(keyInput, signature);
  } catch {
    return false;
  }
}
