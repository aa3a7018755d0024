import { createPrivateKey, createPublicKey } from 'node:crypto';
import { publicPointOf } from '../ecdsa/sign-digest';
import type { ChipKeyAlgorithm } from './types';

/**
 * The software chip's public keys from its private keys, on a signing thread (soft-chip.ts
 * listKeys), so the event loop never does the curve work: d·G by OpenSSL, as the chip signs
 * (ecdsa/sign-digest.ts), with no table of points to build first.
 */

/** SubjectPublicKeyInfo DER for a P-256 key (RFC 5480): fixed 26-byte prefix + 65-byte point. */
export function p256SpkiFromSecret(sk: Uint8Array): Uint8Array {
  const prefix = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
  return new Uint8Array(Buffer.concat([prefix, publicPointOf('p256', sk)]));
}

/** rsa/p256: SPKI DER; secp256k1: the uncompressed point 04‖X‖Y. `privateKey`: PKCS#8 PEM, or the scalar in hex. */
export function publicKeyOf(rec: { algorithm: ChipKeyAlgorithm; privateKey: string }): Uint8Array {
  switch (rec.algorithm) {
    case 'rsa':
      return new Uint8Array(createPublicKey(createPrivateKey(rec.privateKey)).export({ type: 'spki', format: 'der' }));
    case 'p256':
      return p256SpkiFromSecret(Buffer.from(rec.privateKey, 'hex'));
    case 'secp256k1':
      return publicPointOf('secp256k1', Buffer.from(rec.privateKey, 'hex'));
  }
}
