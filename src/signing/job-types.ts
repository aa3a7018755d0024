import type { PadesLevel } from '../domain/pades';
import type { StampDecision } from '../pades/stamp';
import type { TestFault } from '../config/config';
import type { HttpClient } from '../net/http-client';
import type { CachedCredential, CachedDesign } from '../store/catalog-types';
import type { DocumentStore } from '../store/document-store';
import type { KindParams, RequestEntry, RequestParams } from '../store/request-store';
import type { DocumentWork, PreparedDocument } from '../workers/document-work';
import type { SigningEngine } from './engine';
import type { SignTask, SignTaskResult } from './sign-tasks';
import type { SignatureKind } from './kind';

/** What a job needs, passed in (no module reaches for globals): easy to wire, easy to test. */
export interface JobDeps {
  now: () => Date;
  /** What is signed (signing/kinds/): the request's kind, by its name. */
  kinds: (name: string) => SignatureKind;
  /** Who signs (signing/engines/): the request's engine, chosen once by the runner. */
  engines: (name: string) => SigningEngine;
  /** A task on a signing thread (sign-tasks.ts): a kind's CPU-bound checks (the EVM recovery id). */
  runTask: (task: SignTask, o?: { signal?: AbortSignal }) => Promise<SignTaskResult>;
  findCredential: (key: string) => CachedCredential | undefined;
  findDesign: (key: string) => CachedDesign | undefined;
  documents: DocumentStore;
  /** The PDF workers: prepare, finish and the long-term updates run there. */
  documentWork: DocumentWork;
  tsaUrl: string | null;
  /** serve --pades-level: the level of a request that asks for none. */
  padesLevel?: PadesLevel;
  /** Outbound HTTP (timestamp authority, OCSP, CRLs), with the operator's proxy settings. */
  http: HttpClient;
  /** Revocation data the service holds itself (the demo CA's CRL), by URL: no network for it. */
  localRevocation?: (url: string) => Uint8Array | null;
  /** The operator's log (a final state the disk refuses is said once per request). */
  warn?: (message: string) => void;
  /** Tests only: a fault the runner provokes (config/env.ts LOCALSIGN_TEST_FAULT). */
  testFault?: TestFault | null;
}

/** One run of a job. */
export interface JobRun {
  /**
   * Aborted when the request ends without this run (its timeout): a job checks it before anything
   * signs, so nothing is signed for a request that is already ERROR.
   */
  signal: AbortSignal;
  /**
   * The token is about to sign `digestHex` (the chip's `onSigning`, right before C_Sign): a
   * timeout meanwhile waits for the outcome (job-runner.ts). Throws the abort reason
   * when the request has already ended: then nothing may be signed.
   */
  signing(digestHex: string): void;
  /**
   * The signature over `digestHex` exists: should the request end ERROR from now on, its audit
   * record names this digest (CONTRACT Security: every signature has its record). Throws the
   * abort reason when the request has ended (its timeout came while the token signed).
   */
  signed(digestHex: string): void;
  /** The request's engine (the credential's, recorded at accept): it signs the digest. */
  engine: SigningEngine;
  /** The request was accepted by an earlier process and resumed at start-up. */
  resumed: boolean;
  /**
   * What accept found in the catalogue for this request, when it was accepted by this process:
   * the job signs with those, so a sync between the 202 and the job changes nothing (one
   * owner). A resumed request has none and looks them up again.
   */
  accepted?: AcceptedCatalog;
}

/** The credential (and design) a request was accepted with. */
export interface AcceptedCatalog {
  credential: CachedCredential;
  design: CachedDesign | null;
  /** The request's own chip PIN (`chip_pin`), in memory only: zeroed once its signature is over. */
  chipPin?: Uint8Array;
  /**
   * PAdES: where the check before the 202 put the stamp (pades/stamp/placement.ts StampDecision), in
   * memory only: prepare does not walk the page's content again.
   */
  placement?: StampDecision | null;
  /**
   * PAdES, a small document: prepared with its check before the 202, in memory only;
   * the job starts at the signature. `reserveTimestamp`: the room it left for a timestamp, which
   * the job's level must agree with, else the job prepares again.
   */
  prepared?: { document: PreparedDocument; reserveTimestamp: boolean };
}

export interface JobOutcome {
  result: Record<string, unknown>;
  /** For the audit record: the tx hash, or SHA-256 of the CMS signed attributes. */
  digestHex: string;
  /**
   * Writes what the result needs on disk (the signed PDF). The runner starts it as soon as the
   * job has its result, side by side with the fsyncs of the request's PENDING record and input;
   * the DONE record waits for all of them.
   */
  persist?: () => Promise<void>;
  /** Removes what `persist` wrote, for a request that will never be DONE. Never rejects. */
  discard?: () => Promise<void>;
}

export type Job<P extends KindParams = RequestParams> = (entry: RequestEntry<P>, deps: JobDeps, run: JobRun) => Promise<JobOutcome>;
