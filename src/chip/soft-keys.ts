import { createPrivateKey, createPublicKey } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { getPublicKey as secp256k1PublicKey } from '@noble/secp256k1';
import type { ChipKeyAlgorithm } from './types';

/**
 * The software chip's public keys from its private keys: pure, so the signing threads compute them
 * (soft-chip.ts listKeys), where the curves' tables live, and the event loop never does.
 */

/** SubjectPublicKeyInfo DER for a P-256 key (RFC 5480): fixed 26-byte prefix + 65-byte point. */
export function p256SpkiFromSecret(sk: Uint8Array): Uint8Array {
  const prefix = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
  return new Uint8Array(Buffer.concat([prefix, p256.getPublicKey(sk, false)]));
}

/**
 * The uncompressed point 04‖X‖Y of a secp256k1 secret key, through @noble/secp256k1, the library
 * the chip signs with: the base-point table a signing thread's warm-up makes serves both.
 */
export function secp256k1PublicKeyOf(sk: Uint8Array): Uint8Array {
  return secp256k1PublicKey(sk, false);
}

/** rsa/p256: SPKI DER; secp256k1: the uncompressed point 04‖X‖Y. `privateKey`: PKCS#8 PEM, or the scalar in hex. */
export function publicKeyOf(rec: { algorithm: ChipKeyAlgorithm; privateKey: string }): Uint8Array {
  switch (rec.algorithm) {
    case 'rsa':
      return new Uint8Array(createPublicKey(createPrivateKey(rec.privateKey)).export({ type: 'spki', format: 'der' }));
    case 'p256':
      return p256SpkiFromSecret(Buffer.from(rec.privateKey, 'hex'));
    case 'secp256k1':
      return secp256k1PublicKeyOf(Buffer.from(rec.privateKey, 'hex'));
  }
}
