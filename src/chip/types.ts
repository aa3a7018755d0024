/**
 * The signing chip as the rest of the service sees it. Two implementations: the software chip of
 * the embedded default (`soft-chip.ts`) and the PKCS#11 bridge (`pkcs11/`).
 */
export type ChipKeyAlgorithm = 'rsa' | 'p256' | 'secp256k1';

export interface ChipKey {
  /**
   * Lowercase hex of CKA_ID (the soft chip uses the same form); `pk-…` from the public key for a
   * key the token gave no CKA_ID (key-inventory.ts). Stable across sessions.
   */
  id: string;
  label: string;
  algorithm: ChipKeyAlgorithm;
  /** rsa/p256: SubjectPublicKeyInfo DER. secp256k1: the 65-byte uncompressed point 04‖X‖Y. */
  publicKey: Uint8Array;
  /** DER X.509 certificate of this key when the chip holds one (PAdES credentials need it). */
  certificate: Uint8Array | null;
  /** Further certificates on the chip that chain the signer to its root, issuer first, root last. */
  chain: Uint8Array[];
  /**
   * CKA_ALWAYS_AUTHENTICATE (PKCS#11 v2.40 §4.9): the token wants the PIN again for every
   * signature with this key (signature cards, QSCDs, PIV's signature slot). Absent when the
   * private key could not be read (a chip not logged in until it signs).
   */
  pinPerSignature?: boolean;
}

/** What one signature may carry besides the digest. */
export interface SignOptions {
  /**
   * The PIN a sign request brought (`chip_pin`), as UTF-8 bytes: used for this signature's
   * logins only, then zeroed by the chip. For a chip set up with `--chip-pin-per-request`.
   */
  pin?: Uint8Array;
  /**
   * The application (its wrapper key) a `pin` came from: wrong ones are counted and slowed per
   * application and per token (pin-tries.ts).
   */
  caller?: string;
  /** The request ended (its timeout): a signature not begun is not made; a PIN pad waiting is cancelled. */
  signal?: AbortSignal;
  /**
   * Called at the last moment a token's signature can still be refused: right before C_Sign,
   * after the last look at `signal`. It may throw to make none; once it returns, the signature
   * will exist and the caller must account for it (a timeout then waits for the
   * token's answer, and an ERROR names the digest in its audit record). The soft chip does not
   * call it: its signature exists only in its answer.
   */
  onSigning?: () => void;
}

export interface Chip {
  readonly kind: 'soft' | 'pkcs11';
  /** PKCS#11: whether the token answered the last call made to it (false while it is pulled out). */
  readonly present?: boolean;
  listKeys(): Promise<ChipKey[]>;
  /**
   * Signs a 32-byte digest with the key `keyId`.
   * - rsa: RSASSA-PKCS1-v1_5, i.e. CKM_RSA_PKCS over DigestInfo(sha256, digest); returns the raw
   *   signature (modulus length).
   * - p256 / secp256k1: CKM_ECDSA over the digest; returns raw r‖s (64 bytes), s NOT normalised:
   *   callers normalise (EVM low-s) or DER-wrap (CMS) themselves.
   * Throws ChipError with a message naming the problem (token removed, PIN locked, …).
   */
  signDigest(keyId: string, digest: Uint8Array, options?: SignOptions): Promise<Uint8Array>;
  /**
   * Optional, secp256k1 only: sign, bring s to low-s and find the recovery id against
   * `publicKey` (throwing SigningError when none recovers to it) in one step. The software chip
   * does all three in one worker task; callers without it use signDigest and recover themselves.
   */
  signRecoverable?(keyId: string, digest: Uint8Array, publicKey: Uint8Array, options?: Pick<SignOptions, 'signal'>): Promise<{ r: bigint; s: bigint; yParity: 0 | 1 }>;
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
  | { op: 'secp256k1-sign-recover'; secretKey: Uint8Array; publicKey: Uint8Array; digest: Uint8Array }
  /** The public keys of the chip's records, in their order (rsa/p256: SPKI DER; secp256k1: 04‖X‖Y). */
  | { op: 'public-keys'; keys: { algorithm: ChipKeyAlgorithm; privateKey: string }[] };

export type SoftSignTaskResult = Uint8Array | Uint8Array[] | { r: bigint; s: bigint; yParity: 0 | 1 };

/**
 * How a PKCS#11 chip is unlocked, at most one of: a PIN in an environment variable (`pin_env`)
 * or a file (`pin_file`), read when a login needs it; the reader's PIN pad (`pin_pad`: the
 * person types it there, C_Login gets a NULL PIN); or no stored PIN at all (`pin_per_request`:
 * each sign request brings `chip_pin`). Never the PIN itself.
 */
export interface ChipPinSource {
  pin_env: string | null;
  pin_file: string | null;
  pin_pad?: boolean;
  pin_per_request?: boolean;
}

/** One more token on the same module (`--chip-token` given again), with its own PIN source. */
export type ChipTokenSettings = { token_label: string } & ChipPinSource;

/**
 * Where the chip is and how to unlock it (config dir settings). Never the PIN itself. Several
 * tokens: `more_tokens` lists the tokens after the first, each with its own session
 * and PIN source; `all_tokens` takes every token present when the chip opens, with the first
 * one's PIN source. With either, key ids carry the token label (`label/01`).
 */
export type ChipSettings =
  | { kind: 'soft' }
  | ({ kind: 'pkcs11'; module: string; token_label: string | null; more_tokens?: ChipTokenSettings[]; all_tokens?: boolean } & ChipPinSource);
