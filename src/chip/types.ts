/**
 * The signing chip as the rest of the service sees it. Two implementations: the software chip of
 * the embedded default (`soft-chip.ts`) and the PKCS#11 bridge (`pkcs11/`).
 */
export type ChipKeyAlgorithm = 'rsa' | 'p256' | 'secp256k1';

export interface ChipKey {
  /** Lowercase hex of CKA_ID (the soft chip uses the same form). Stable across sessions. */
  id: string;
  label: string;
  algorithm: ChipKeyAlgorithm;
  /** rsa/p256: SubjectPublicKeyInfo DER. secp256k1: the 65-byte uncompressed point 04‖X‖Y. */
  publicKey: Uint8Array;
  /** DER X.509 certificate of this key when the chip holds one (PAdES credentials need it). */
  certificate: Uint8Array | null;
  /** Further certificates on the chip that chain the signer to its root, issuer first, root last. */
  chain: Uint8Array[];
}

export interface Chip {
  readonly kind: 'soft' | 'pkcs11';
  listKeys(): Promise<ChipKey[]>;
  /**
   * Signs a 32-byte digest with the key `keyId`.
   * - rsa: RSASSA-PKCS1-v1_5, i.e. CKM_RSA_PKCS over DigestInfo(sha256, digest); returns the raw
   *   signature (modulus length).
   * - p256 / secp256k1: CKM_ECDSA over the digest; returns raw r‖s (64 bytes), s NOT normalised:
   *   callers normalise (EVM low-s) or DER-wrap (CMS) themselves.
   * Throws ChipError with a message naming the problem (token removed, PIN locked, …).
   */
  signDigest(keyId: string, digest: Uint8Array): Promise<Uint8Array>;
  /**
   * Optional, secp256k1 only: sign, bring s to low-s and find the recovery id against
   * `publicKey` (throwing SigningError when none recovers to it) in one step. The software chip
   * does all three in one worker task; callers without it use signDigest and recover themselves.
   */
  signRecoverable?(keyId: string, digest: Uint8Array, publicKey: Uint8Array): Promise<{ r: bigint; s: bigint; yParity: 0 | 1 }>;
  close(): Promise<void>;
}

/**
 * The signing steps the software chip hands to the signing worker threads (CPU-bound, off the
 * event loop). Plain data in and out; signing/sign-tasks.ts runs them. The chip only names them.
 */
export type SoftSignTask =
  | { op: 'rsa-sign'; keyPem: string; digest: Uint8Array }
  | { op: 'p256-sign'; secretKey: Uint8Array; digest: Uint8Array }
  | { op: 'secp256k1-sign'; secretKey: Uint8Array; digest: Uint8Array }
  | { op: 'secp256k1-sign-recover'; secretKey: Uint8Array; publicKey: Uint8Array; digest: Uint8Array };

export type SoftSignTaskResult = Uint8Array | { r: bigint; s: bigint; yParity: 0 | 1 };

/** Where the chip is and how to unlock it (config dir settings). Never the PIN itself. */
export type ChipSettings =
  | { kind: 'soft' }
  | { kind: 'pkcs11'; module: string; token_label: string | null; pin_env: string | null; pin_file: string | null };
