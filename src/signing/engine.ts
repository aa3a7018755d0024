/**
 * Who signs: an engine signs a 32-byte digest with the key a credential names, for the algorithm
 * that key declares, and gives back the raw signature. It knows no kind of request (what the
 * digest is a digest of, how the signature is encoded, how it is checked: signing/kind.ts), the
 * way pyHanko's `Signer.async_sign_raw` knows no PDF. A new engine is one definition
 * (`EngineDefinition`) registered in engines/index.ts; docs/architecture.md walks through it.
 */
import type { Chip } from '../chip/types';
import type { DigestLabel, PlatformSigningDeps } from '../platform/remote';
import type { CachedCredential } from '../store/catalog-types';
import type { SignTask, SignTaskResult } from './sign-tasks';

/** What a credential's key computes over a 32-byte digest. */
export type KeyAlgorithm =
  /** RSASSA-PKCS1-v1_5 (RFC 8017 §8.2) over DigestInfo(sha256, digest): the signature, as long as the modulus. */
  | 'rsa-pkcs1-sha256'
  /** ECDSA (SEC 1 §4.1.3) on P-256 over the digest as given (no second hash): r‖s, 32 bytes each. */
  | 'ecdsa-p256'
  /** ECDSA on secp256k1 over the digest as given: r‖s, s as the key made it (a kind that wants low-s applies it). */
  | 'ecdsa-secp256k1';

/** One digest of one request, to sign. */
export interface DigestRequest {
  requestId: string;
  credential: CachedCredential;
  /** 32 bytes. */
  digest: Uint8Array;
  algorithm: KeyAlgorithm;
  /**
   * What the digest is, for a signer that shows or records it (PLATFORM.md's `kind`,
   * `digest_algorithm`, `chain_id`, and the shape of its answer): from the kind's table, passed on
   * as it is. null: the kind has no such words (the platform does not sign it).
   */
  label: DigestLabel | null;
  /**
   * ecdsa-secp256k1: the public key (65 bytes, 04‖X‖Y) the recovery id must recover to. An engine
   * that `recovers` may answer the recovery id checked against it in the same step.
   */
  recoverTo?: Uint8Array;
  /** The request runs again after a restart: a remote engine may have its digest already. */
  resumed: boolean;
  /** The request's own chip PIN (`chip_pin`), when it brought one. */
  pin?: Uint8Array;
  /** The application that sent the request (its key): wrong `chip_pin` values are slowed per application. */
  caller?: string;
  /**
   * Called at the last moment the signature can still be refused (right before C_Sign); it throws
   * when the request has ended. Once it returns the signature will exist (JobRun.signing).
   */
  onSigning?: () => void;
}

/** What an engine gives back: the raw signature, and what it knows besides. */
export interface RawSignature {
  /** rsa-pkcs1-sha256: the signature. ecdsa-*: r‖s, 32 bytes each. */
  signature: Uint8Array;
  /** ecdsa-secp256k1, when the engine knows it: the recovery id of this (r, s) (SEC 1 §4.1.6). */
  recoveryId?: 0 | 1;
  /**
   * The engine found `recoveryId` on this machine by recovering to `recoverTo` (its own check, not
   * a claim from elsewhere): the kind need not recover again.
   */
  recoveryChecked?: boolean;
}

/** An engine's synchronous facts, read by the catalogue, accept and the API without making it. */
export interface EngineFacts {
  /** The catalogue's `engine` (PLATFORM.md "Catalogue"). */
  readonly name: string;
  /** Who signs, in the words of a message: "the platform" ("… is signed by the platform"). */
  readonly signer: string;
  /** The `engine` value's meaning in the OpenAPI document. */
  readonly summary: string;
  /**
   * The digest leaves this machine: its request must be durable and visible before (an answer
   * may be pushed at once), and after a restart the digest may already be signed out there.
   */
  readonly remote: boolean;
  /**
   * Its credentials name a key on this machine's chip (`chip_key_id`, PLATFORM.md): the key is
   * found at sync, a request may bring `chip_pin`, and the credential shows its PIN flags.
   */
  readonly onChip: boolean;
}

export interface SigningEngine extends EngineFacts {
  /** Given `recoverTo`, it may answer the recovery id checked against that key in one step. */
  readonly recovers: boolean;
  sign(request: DigestRequest, signal: AbortSignal): Promise<RawSignature>;
  /** The request is final: anything kept for its answer goes. */
  forget?(requestId: string): void;
}

/** An engine as the service registers it (engines/index.ts): its facts, and how to make it once per service. */
export interface EngineDefinition extends EngineFacts {
  make(deps: EngineDeps): Pick<SigningEngine, 'recovers' | 'sign' | 'forget'>;
}

/**
 * What engines are made with (context.ts): a signing thread's tasks, this machine's chip, the
 * paired platform. An engine takes what it needs and ignores the rest.
 */
export interface EngineDeps {
  getChip: () => Promise<Chip>;
  runTask: (task: SignTask, o?: { signal?: AbortSignal }) => Promise<SignTaskResult>;
  platform: PlatformSigningDeps;
}
