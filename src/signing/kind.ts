/**
 * What is signed (issue 18): one seam for what differs by kind of request (PAdES, EVM): prepare,
 * the digest, finish and the check before DONE, and what the runner must know of a kind without
 * naming it. A new kind is one file in kinds/ and one line in kinds/index.ts.
 */
import type { RequestEntry } from '../store/request-store';
import type { SigningEngine } from './engine';
import type { Job, JobDeps } from './job-types';

export interface SignatureKind<K extends RequestEntry['kind'] = RequestEntry['kind']> {
  /** The job: from the accepted request to the checked result (the engine signs in between). */
  run: Job<K>;
  /**
   * A run holds a document (in memory, in a PDF worker): at most the runner's document slots run
   * at once, and one that must wait for a slot lets its document wait on disk (`queued`).
   */
  holdsDocument: boolean;
  queued?(entry: Extract<RequestEntry, { kind: K }>, deps: JobDeps): void;
  /** For the audit record of a request that fails before its digest is known from work: the digest already in the request, if any. */
  auditDigest(entry: Extract<RequestEntry, { kind: K }>): string | null;
  /** A resumed request of a remote engine whose digest is already out (nothing local a crash could repeat). */
  digestOut(entry: Extract<RequestEntry, { kind: K }>, deps: JobDeps): Promise<boolean>;
  /** The request is final: what it kept on disk for a restart goes (off the event loop; never rejects). */
  release?(entry: Extract<RequestEntry, { kind: K }>, deps: JobDeps, engine: SigningEngine): void | Promise<void>;
}
