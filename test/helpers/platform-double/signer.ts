/**
 * What the platform's HSM does with a digest (PLATFORM.md "Remote signing"): RSASSA-PKCS1-v1_5
 * (RFC 8017 §8.2) over DigestInfo(sha256, digest), ECDSA P-256 over the digest as given (no second
 * hash) encoded as DER SEQUENCE{r,s} (RFC 5480 §2.2 / SEC 1 §C.5), or secp256k1 over the
 * transaction hash with low-s (EIP-2) and the recovery id.
 */
import { constants, createPrivateKey, privateEncrypt } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

// RFC 8017 §9.2 note 1: DER prefix of DigestInfo { sha256, NULL } before the 32-byte hash.
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

export function signRsaDigest(keyPem: string, digest: Uint8Array): Buffer {
  return privateEncrypt({ key: keyPem, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, digest]));
}

export function signP256Digest(keyPem: string, digest: Uint8Array): Buffer {
  const d = Buffer.from(createPrivateKey(keyPem).export({ format: 'jwk' }).d ?? '', 'base64url');
  return Buffer.from(p256.sign(digest, d, { prehash: false, format: 'der' }));
}

export function signEvmHash(privateKey: Uint8Array, hash: Uint8Array): { r: string; s: string; recovery_id: 0 | 1 } {
  // 'recovered' = recovery byte ‖ r ‖ s; lowS is noble's default (EIP-2).
  const sig = secp256k1.sign(hash, privateKey, { prehash: false, format: 'recovered', lowS: true });
  const hex = Buffer.from(sig).toString('hex');
  return { r: `0x${hex.slice(2, 66)}`, s: `0x${hex.slice(66)}`, recovery_id: sig[0] === 1 ? 1 : 0 };
}

