/**
 * Who signs (issue 18): one seam between what is signed (a kind: PAdES, EVM; signing/kinds/) and
 * who signs it (an engine: this machine's chip, or the remote platform; signing/engines/). The job
 * runner and the kinds know neither engine by name; an engine knows no document. A new engine is
 * one file in engines/ and one line in engines/index.ts.
 */
import type { EngineName } from '../domain/signing';
import type { CachedCredential } from '../store/catalog-types';

/**
 * What a kind asks an engine to sign: one 32-byte digest of one request, in one of two forms.
 * `cms`: the SignatureValue of a CMS SignerInfo over `signedAttributes` (RFC 5652 §5.4; RSA
 * PKCS #1 v1.5, or ECDSA as DER SEQUENCE{r, s}). `evm`: secp256k1 r, low s and the recovery id,
 * recovering to the credential's address.
 */
export type SignatureRequest = {
  requestId: string;
  credential: CachedCredential;
  digest: Uint8Array;
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
} & ({ form: 'cms'; signedAttributes: Uint8Array } | { form: 'evm'; chainId: number | null });

export type Signature<R extends SignatureRequest = SignatureRequest> = R extends { form: 'cms' } ? Uint8Array : { r: bigint; s: bigint; yParity: 0 | 1 };

export interface SigningEngine {
  readonly name: EngineName;
  /**
   * The digest leaves this machine: its request must be durable and visible before (an answer
   * may be pushed at once), and after a restart the digest may already be signed out there.
   */
  readonly remote: boolean;
  sign<R extends SignatureRequest>(request: R, signal: AbortSignal): Promise<Signature<R>>;
  /** The request is final: anything kept for its answer goes. */
  forget?(requestId: string): void;
}
