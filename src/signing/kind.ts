/**
 * What is signed: a kind of request (PAdES, EVM) owns its request and result shapes, the digest
 * it hands an engine, the encoding of the engine's raw signature (a CMS for PAdES; r, s, v for
 * EVM), the check of that answer, what it keeps on disk, and its words on the platform's wire.
 * It knows no engine by name. Its synchronous facts (`SignatureKind`) are one small table that
 * accept, the results routes, retention, recovery, the catalogue and the platform client read;
 * its job (`KindJob`) may load on first use. A new kind is one file in kinds/ and one line in
 * kinds/index.ts; docs/architecture.md walks through it.
 */
import type { BodySpec, Parsed } from '../domain/request-body';
import type { CredentialTypeRules, DigestLabel } from '../platform/remote';
import type { CachedCredential } from '../store/catalog-types';
import type { KindParams, RequestEntry, RequestParams } from '../store/request-store';
import type { KeyAlgorithm, SigningEngine } from './engine';
import type { JobDeps, JobOutcome, JobRun } from './job-types';

/** A credential type (the catalogue's `type`): its fields, its keys, how the API shows it. */
export interface CredentialType extends CredentialTypeRules {
  /** The algorithm its key computes (what its requests ask an engine for). */
  algorithmOf(credential: CachedCredential): KeyAlgorithm;
  /** What GET /v1/credentials adds to the common fields; null leaves the credential out of the list. */
  present(credential: CachedCredential): Record<string, unknown> | null;
}

/**
 * A kind's route, for a request that is one JSON body: the generic sign route parses it with
 * `body` (api/request-schemas.ts `parseBody`, the same description the OpenAPI document shows)
 * and accepts it with `accept`'s answer (signing/accept.ts `acceptRequest`). PAdES, whose
 * document also comes as a raw body, has its own route (api/routes/pades-sign.ts).
 */
export interface KindRoute<B extends BodySpec = BodySpec, P extends object = object> {
  /** OpenAPI operationId; the TypeScript client's method of the same name. */
  readonly id: string;
  readonly path: string;
  readonly summary: string;
  readonly body: B;
  /** The request's credential, its own PIN, and its params (besides `engine`, which accept adds). */
  accept(body: Parsed<B>): { credentialKey: string; chipPin: Uint8Array | null; params: P };
}

/**
 * Params whose keys have no `_`: the journal keeps each key in snake_case and reads it back
 * camelCase (store/request-store.ts), so a key written with `_` would come back renamed.
 */
export type CamelCaseKeys<P> = { [K in keyof P]: K extends `${string}_${string}` ? never : unknown };

export interface SignatureKind<P extends KindParams & CamelCaseKeys<P> = RequestParams> {
  /** RequestEntry `kind`: the journal's, the audit record's, GET /v1/results' `kind`. */
  readonly name: string;
  /** In a message's words: "PAdES signing" ("… PAdES signing needs a pades one"). */
  readonly title: string;
  /** The credentials it signs with. */
  readonly credential: CredentialType;
  /**
   * Its runs hold a document (in memory, in a PDF worker): at most the runner's document slots
   * run at once; it keeps files on disk (retention and recovery ask), and a DONE's result is that
   * document, served in the result as `field` (base64) and, for a PDF, at /v1/results/{id}/pdf.
   * null: a run holds nothing but its params and its result is in the journal.
   */
  readonly document: { field: string; mediaType: string } | null;
  /** Its words on the platform's wire (PLATFORM.md `kind`, `digest_algorithm`, the answer's shape); null: the platform does not sign it. */
  readonly platform: Omit<DigestLabel, 'chainId'> | null;
  /** Its route, when a request is one JSON body. */
  readonly route: KindRoute<BodySpec, Omit<P, keyof KindParams>> | null;
  /** Its DONE result in the OpenAPI document (`components.schemas[name]`, one branch of Result). */
  readonly resultSchema: { name: string; schema: Record<string, unknown> };
  /** The job and what the runner asks of it, loaded on first use (the PAdES one pulls in the document work). */
  job(): Promise<KindJob<P>>;
}

/** What the runner asks of a kind once it runs one of its requests. */
export interface KindJob<P extends KindParams = RequestParams> {
  /** The job: from the accepted request to the checked result (the engine signs in between). */
  run(entry: RequestEntry<P>, deps: JobDeps, run: JobRun): Promise<JobOutcome>;
  /** A run that must wait for a document slot: its document waits on disk, not in memory. */
  queued?(entry: RequestEntry<P>, deps: JobDeps): void;
  /** For the audit record of a request that fails before its digest is known from work: the digest already in the request, if any. */
  auditDigest(entry: RequestEntry<P>): string | null;
  /** A resumed request of a remote engine whose digest is already out (nothing local a crash could repeat). */
  digestOut(entry: RequestEntry<P>, deps: JobDeps): Promise<boolean>;
  /** The request is final: what it kept on disk for a restart goes (off the event loop; never rejects). */
  release?(entry: RequestEntry<P>, deps: JobDeps, engine: SigningEngine): void | Promise<void>;
}

/**
 * A kind's route with its body's own types: `accept` is given what `parseBody(body, route.body)`
 * parses, which the generic sign route (api/routes/kind-sign.ts) does with this very body.
 */
export function kindRoute<B extends BodySpec, P extends object>(route: KindRoute<B, P>): KindRoute<BodySpec, P> {
  return route as unknown as KindRoute<BodySpec, P>;
}
