/**
 * The accept side of the sign routes (atproto's pds shape: a route parses the input and shapes
 * the output; one service call does the rest). Everything that can be checked is checked here,
 * before the 202 (CONTRACT: a bad PDF or an unknown credential is a 422, never an async ERROR);
 * then the request is made durable and its job started. What every kind's accept does is here;
 * what a kind checks of its own is its (kinds/: the PAdES document and design in pades.ts).
 */
import { InvalidInputError, LocalsignError } from '../domain/errors';
import { listNames } from '../domain/messages';
import type { DiskQuota } from '../requests/disk-quota';
import type { Logger } from '../log/logger';
import type { RequestRegistry } from '../requests/registry';
import type { CachedCredential, CachedDesign, CatalogCache, WrapperRecord } from '../store/catalog-types';
import type { DocumentStore } from '../store/document-store';
import type { KindParams, RequestEntry } from '../store/request-store';
import type { DocumentWork } from '../workers/document-work';
import type { EngineFacts } from './engine';
import type { JobRunner } from './job-runner';
import type { CamelCaseKeys, SignatureKind } from './kind';
import { FIELD_PLACEHOLDERS, type PadesLevel } from '../domain/pades';

export interface AcceptDeps {
  /** The level of a request that asks for none (serve --pades-level) and whether a TSA is set. */
  pades: { defaultLevel: PadesLevel; tsaUrl: string | null };
  /** Each application's disk quota: its new requests are refused beyond it. */
  quota: Pick<DiskQuota, 'check'>;
  cache: () => CatalogCache;
  /** The engines' facts, by the name a credential gives. */
  engines: (name: string) => EngineFacts | undefined;
  documents: DocumentStore;
  /** The PDF workers: the check before the 202 reads the document there, never on the event loop. */
  documentWork: DocumentWork;
  registry: RequestRegistry;
  jobs: JobRunner;
  log: Logger;
  now: () => Date;
  /**
   * A request bringing `chip_pin`: throws the 429 while its application, or anyone, must still wait
   * after wrong ones on the credential's token (chip/pin-tries.ts), before anything else is done.
   */
  chipPinMayTry?: (credential: CachedCredential, callerKey: string) => void;
}

/**
 * CONTRACT `chip_pin`: only for a credential whose key is on a chip that keeps no PIN, and then
 * required; refused with 429 while wrong ones from this application, or on this card,
 * are slowed (chip/pin-tries.ts). Messages never carry the PIN.
 */
function checkChipPin(deps: AcceptDeps, credential: CachedCredential, pin: Uint8Array | null, caller: WrapperRecord): void {
  if (pin === null) {
    if (credential.pin_per_request) throw new InvalidInputError(`credential_key ${credential.credential_key} is on a chip that keeps no PIN: send the signatory's chip_pin`);
    return;
  }
  const engine = deps.engines(credential.engine);
  if (!engine?.onChip) throw new InvalidInputError(`chip_pin is only for chip credentials; ${credential.credential_key} is signed by ${engine?.signer ?? `engine ${credential.engine}`}`);
  if (!credential.pin_per_request) throw new InvalidInputError(`the chip of credential_key ${credential.credential_key} has its PIN configured (or a PIN pad): chip_pin is not taken`);
  deps.chipPinMayTry?.(credential, caller.key);
}

/**
 * Zeroes a request's PIN when the request is refused before its job started; once `handOver` was
 * called the job owns the PIN (and zeroes it when its signature is over, whatever the answer).
 */
export async function wipingOnFailure<T>(pin: Uint8Array | null, work: (handOver: () => void) => Promise<T>): Promise<T> {
  let handed = false;
  try {
    return await work(() => {
      handed = true;
    });
  } catch (error) {
    if (!handed) pin?.fill(0);
    throw error;
  }
}

/** CONTRACT: a wrapper limited to some credentials gets 403 for any other one. */
export function assertCredentialAllowed(caller: Pick<WrapperRecord, 'credentials'>, credentialKey: string): void {
  if (caller.credentials && !caller.credentials.includes(credentialKey)) {
    throw new LocalsignError('forbidden', 'this application key may not use that credential_key', { type: 'scope' });
  }
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** The credential a request names, of the type its kind signs with (CONTRACT: another type is 422). */
function findCredential(cache: CatalogCache, key: string, kind: SignatureKind): CachedCredential {
  const credential = cache.credentials.find((x) => x.credential_key === key);
  if (!credential) throw new InvalidInputError(`credential_key ${key.slice(0, 64)} is not a known credential (see GET /v1/credentials)`);
  const type = kind.credential.name;
  if (credential.type !== type) {
    throw new InvalidInputError(`credential_key ${key} is ${article(credential.type)} ${credential.type} credential; ${kind.title} needs ${article(type)} ${type} one`);
  }
  return credential;
}

/** CONTRACT: unknown variable names and missing required ones are 422, naming them. */
export function checkVariables(design: CachedDesign, variables: Record<string, string>, fields: Record<string, string | null>): void {
  const known = new Set(design.variables.map((v) => v.name));
  const unknown = Object.keys(variables).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new InvalidInputError(`unknown variable${unknown.length > 1 ? 's' : ''} for design "${design.name}": ${listNames(unknown)}; it takes: ${[...known].join(', ') || 'none'}`);
  }
  const provided = (name: string) => variables[name] !== undefined || ((FIELD_PLACEHOLDERS as readonly string[]).includes(name) && fields[name] != null);
  const missing = design.variables.filter((v) => v.required && !provided(v.name)).map((v) => v.name);
  if (missing.length > 0) {
    throw new InvalidInputError(`missing required variable${missing.length > 1 ? 's' : ''} for design "${design.name}": ${missing.join(', ')}`);
  }
}

/**
 * What every kind's accept checks first, in the CONTRACT's order: the application's disk quota
 * (429), its right to the credential (403), the credential and its type (422), its `chip_pin`.
 */
export function acceptChecks(deps: AcceptDeps, kind: SignatureKind, input: { credentialKey: string; chipPin: Uint8Array | null }, caller: WrapperRecord): { cache: CatalogCache; credential: CachedCredential } {
  deps.quota.check(caller.key, deps.now().getTime());
  assertCredentialAllowed(caller, input.credentialKey);
  const cache = deps.cache();
  const credential = findCredential(cache, input.credentialKey, kind);
  checkChipPin(deps, credential, input.chipPin, caller);
  return { cache, credential };
}

/** Waits for the PENDING record (and the document) to be durable: a 202 is never lost. */
export async function durably(deps: Pick<AcceptDeps, 'registry'>, entry: RequestEntry, parts: Promise<unknown>[]): Promise<RequestEntry> {
  const settled = await Promise.allSettled(parts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (settled[0]!.status === 'rejected') throw (settled[0] as PromiseRejectedResult).reason;
  if (failed) {
    // The job runner ends it too, retrying while the disk refuses (job-runner.ts settleDurably):
    // this answer waits for the first try only, and reports the write that failed.
    await deps.registry.fail(entry.requestId, failed.reason).catch(() => undefined);
    throw failed.reason;
  }
  return entry;
}

/**
 * A request of a kind whose request is its params (a route's JSON body, kind.ts `KindRoute`): the
 * common checks, then durable, its job signing meanwhile (the 202 waits for the fsync of its
 * PENDING record; nothing is lost).
 */
export function acceptRequest<P extends KindParams & CamelCaseKeys<P>>(
  deps: AcceptDeps,
  kind: SignatureKind<P>,
  input: { credentialKey: string; chipPin: Uint8Array | null; params: Omit<P, keyof KindParams> },
  caller: WrapperRecord,
): Promise<RequestEntry> {
  return wipingOnFailure(input.chipPin, async (handOver) => {
    const { credential } = acceptChecks(deps, kind as unknown as SignatureKind, input, caller);
    const params = { engine: credential.engine, ...input.params, ...(input.chipPin ? { pinFromRequest: true as const } : {}) };
    const { entry, durable } = deps.registry.begin({ kind: kind.name, credentialKey: credential.credential_key, wrapperKey: caller.key, params });
    handOver();
    deps.jobs.start(entry, durable, { credential, design: null, ...(input.chipPin ? { chipPin: input.chipPin } : {}) });
    return durably(deps, entry, [durable]);
  });
}
