/**
 * The accept side of both sign routes (atproto's pds shape: a route parses the input and shapes
 * the output; one service call does the rest). Everything that can be checked is checked here,
 * before the 202 (CONTRACT: a bad PDF or an unknown credential is a 422, never an async ERROR);
 * then the request is made durable and its job started.
 */
import { newRequestId } from '../config/ids';
import { InvalidInputError, LocalsignError } from '../domain/errors';
import { listNames } from '../domain/messages';
import type { DiskQuota } from '../requests/disk-quota';
import type { Logger } from '../log/logger';
import type { RequestRegistry } from '../requests/registry';
import { stampSpecOf, type CachedCredential, type CachedDesign, type CatalogCache, type WrapperRecord } from '../store/catalog-types';
import type { DocumentStore } from '../store/document-store';
import type { PadesParams, RequestEntry } from '../store/request-store';
import { FILE_MIN_BYTES, isFileBytes, type DocumentBytes } from '../store/file-bytes';
import type { StampDecision } from '../pades/stamp';
import type { AcceptedCatalog } from './job-types';
import { prepareFields } from './stamp-values';
import type { DocumentWork } from '../workers/document-work';
import type { JobRunner } from './job-runner';
import type { PadesLevel } from '../domain/pades';

export interface AcceptDeps {
  /** The level of a request that asks for none (serve --pades-level) and whether a TSA is set. */
  pades: { defaultLevel: PadesLevel; tsaUrl: string | null };
  /** Each application's disk quota: its new requests are refused beyond it. */
  quota: Pick<DiskQuota, 'check'>;
  cache: () => CatalogCache;
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

export interface PadesSignInput {
  /**
   * The document, decoded when accept has checked everything cheaper (CONTRACT bounds: the PDF is
   * decoded after the fields and the catalogue). The API edge supplies it: the pdf_base64 field
   * with its tolerance rules, or the raw bytes of the `application/pdf` transport (a large body as
   * the file it was written to as it arrived); `repairs` names what the tolerance rules repaired.
   */
  pdf: () => { pdf: DocumentBytes; repairs: readonly string[] } | Promise<{ pdf: DocumentBytes; repairs: readonly string[] }>;
  credentialKey: string;
  /** null: the credential's default design. */
  designKey: string | null;
  variables: Record<string, string>;
  reason: string | null;
  location: string | null;
  signerName: string | null;
  /** null: the service's default level (serve --pades-level). */
  level: PadesLevel | null;
  certify: 1 | 2 | 3 | null;
  /** `chip_pin` as UTF-8 bytes (JSON body only), or null. */
  chipPin: Uint8Array | null;
}

export interface EvmSignInput {
  /** 32 bytes, already parsed (CONTRACT tx_hash shape). */
  digest: Uint8Array;
  credentialKey: string;
  chainId: number | null;
  /** `chip_pin` as UTF-8 bytes, or null. */
  chipPin: Uint8Array | null;
}

/**
 * CONTRACT `chip_pin`: only for a chip credential whose chip keeps no PIN, and then required
 * (issue 16); refused with 429 while wrong ones from this application, or on this card, are
 * slowed (chip/pin-tries.ts). Messages never carry the PIN.
 */
function checkChipPin(deps: AcceptDeps, credential: CachedCredential, pin: Uint8Array | null, caller: WrapperRecord): void {
  if (pin === null) {
    if (credential.pin_per_request) throw new InvalidInputError(`credential_key ${credential.credential_key} is on a chip that keeps no PIN: send the signatory's chip_pin`);
    return;
  }
  if (credential.engine !== 'chip') throw new InvalidInputError(`chip_pin is only for chip credentials; ${credential.credential_key} is signed by the platform`);
  if (!credential.pin_per_request) throw new InvalidInputError(`the chip of credential_key ${credential.credential_key} has its PIN configured (or a PIN pad): chip_pin is not taken`);
  deps.chipPinMayTry?.(credential, caller.key);
}

/**
 * Zeroes a request's PIN when the request is refused before its job started; once `handOver` was
 * called the job owns the PIN (and zeroes it when its signature is over, whatever the answer).
 */
async function wipingOnFailure<T>(pin: Uint8Array | null, work: (handOver: () => void) => Promise<T>): Promise<T> {
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

/** Request fields that also fill design variables of the same name (CONTRACT Result semantics). */
const FIELD_VARIABLES = ['signer_name', 'reason', 'location'] as const;

/** CONTRACT: a wrapper limited to some credentials gets 403 for any other one. */
export function assertCredentialAllowed(caller: Pick<WrapperRecord, 'credentials'>, credentialKey: string): void {
  if (caller.credentials && !caller.credentials.includes(credentialKey)) {
    throw new LocalsignError('forbidden', 'this application key may not use that credential_key', { type: 'scope' });
  }
}

function findCredential(cache: CatalogCache, key: string, type: CachedCredential['type']): CachedCredential {
  const credential = cache.credentials.find((x) => x.credential_key === key);
  if (!credential) throw new InvalidInputError(`credential_key ${key.slice(0, 64)} is not a known credential (see GET /v1/credentials)`);
  if (credential.type !== type) {
    const article = credential.type === 'evm' ? 'an' : 'a';
    throw new InvalidInputError(`credential_key ${key} is ${article} ${credential.type} credential; ${type === 'pades' ? 'PAdES signing needs a pades one' : 'blockchain signing needs an evm one'}`);
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
  const provided = (name: string) => variables[name] !== undefined || ((FIELD_VARIABLES as readonly string[]).includes(name) && fields[name] != null);
  const missing = design.variables.filter((v) => v.required && !provided(v.name)).map((v) => v.name);
  if (missing.length > 0) {
    throw new InvalidInputError(`missing required variable${missing.length > 1 ? 's' : ''} for design "${design.name}": ${missing.join(', ')}`);
  }
}

/** The design that applies: the request's, else the credential's default; none means invisible. */
function resolveDesign(cache: CatalogCache, credential: CachedCredential, input: PadesSignInput): CachedDesign | null {
  const key = input.designKey ?? credential.default_design_key;
  if (!key) {
    if (Object.keys(input.variables).length > 0) throw new InvalidInputError('variables were given but no design applies (no design_key and the credential has no default design)');
    return null;
  }
  const design = cache.designs.find((d) => d.design_key === key);
  if (!design) {
    throw new InvalidInputError(input.designKey ? `design_key ${input.designKey.slice(0, 64)} is not a known design (see GET /v1/designs)` : `the credential's default design ${key} is not in the cache; run sync`);
  }
  checkVariables(design, input.variables, { signer_name: input.signerName, reason: input.reason, location: input.location });
  return design;
}

/** Waits for the PENDING record (and the document) to be durable: a 202 is never lost. */
async function durably(deps: AcceptDeps, entry: RequestEntry, parts: Promise<unknown>[]): Promise<RequestEntry> {
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

export function acceptPades(deps: AcceptDeps, input: PadesSignInput, caller: WrapperRecord): Promise<RequestEntry> {
  return wipingOnFailure(input.chipPin, (handOver) => (deps.quota.check(caller.key, deps.now().getTime()), acceptPadesRequest(deps, input, caller, handOver)));
}

async function acceptPadesRequest(deps: AcceptDeps, input: PadesSignInput, caller: WrapperRecord, handOver: () => void): Promise<RequestEntry> {
  assertCredentialAllowed(caller, input.credentialKey);
  const cache = deps.cache();
  const credential = findCredential(cache, input.credentialKey, 'pades');
  checkChipPin(deps, credential, input.chipPin, caller);
  const design = resolveDesign(cache, credential, input);
  const { pdf, repairs } = await input.pdf();
  const level = input.level ?? deps.pades.defaultLevel;
  const params: PadesParams = {
    engine: credential.engine,
    designKey: design ? design.design_key : null,
    variables: input.variables,
    reason: input.reason,
    location: input.location,
    signerName: input.signerName,
    // Only an asked-for level is kept: a request without one follows the service's default when it
    // runs (a request accepted with a TSA and resumed without one is still signed, at B-B).
    level: input.level,
    certify: input.certify,
    ...(input.chipPin ? { pinFromRequest: true as const } : {}),
  };
  const checkStamp = design ? stampSpecOf(design.stamp) : null;
  // The check takes its turn among the applications' PDF work (workers/pool.ts), as its caller's.
  const work = deps.documentWork.forOwner(caller.key);
  let placement: StampDecision | null;
  let prepared: AcceptedCatalog['prepared'];
  if (!isFileBytes(pdf) && pdf.byteLength < FILE_MIN_BYTES && credential.certificate_chain?.length) {
    // A small document is prepared with its check (issue 18: one trip to a PDF worker and one
    // reading of it fewer); the job starts at its signature. A large one is prepared by its job,
    // from its work file, within the job's document slots.
    const reserveTimestamp = level !== 'B-B';
    const early = await work.checkAndPrepare(
      { pdf, certificateChain: credential.certificate_chain.map((c) => new Uint8Array(Buffer.from(c, 'base64'))), ...prepareFields(params, design, deps.now()), reserveTimestamp },
      checkStamp,
    );
    placement = early.check.placement;
    prepared = { document: early.prepared, reserveTimestamp };
  } else {
    // The stamp's place found here is carried to prepare (issue 18: the page's content walked once).
    placement = (await work.checkForSigning(pdf, checkStamp, input.certify)).placement;
  }
  // B-T and above take their timestamps from the TSA (ETSI EN 319 142-1 §5.3, §5.4): refused before 202.
  if (level !== 'B-B' && !deps.pades.tsaUrl) {
    throw new InvalidInputError(`level ${level} needs a timestamp authority and this service has none (serve --tsa-url); ask for level B-B or configure one`);
  }
  const requestId = newRequestId();
  if (repairs.length > 0) deps.log.warn(`${requestId}: pdf_base64 repaired (${repairs.join(', ')})`);
  // The document and the PENDING record are made durable side by side (two fsyncs at once) while
  // signing already runs on the in-memory copy; the 202 and the final state wait for both. A
  // crash in between leaves an orphan work file (removed at start-up) or a PENDING request
  // without its document, which recovery ends in ERROR: never a lost 202.
  const written = deps.documents.admit(requestId, pdf);
  const { entry, durable } = deps.registry.begin({ id: requestId, kind: 'pades', credentialKey: credential.credential_key, wrapperKey: caller.key, params });
  handOver();
  deps.jobs.start(entry, Promise.all([durable, written]).then(() => undefined), { credential, design, placement, ...(prepared ? { prepared } : {}), ...(input.chipPin ? { chipPin: input.chipPin } : {}) });
  return durably(deps, entry, [durable, written]);
}

export function acceptEvm(deps: AcceptDeps, input: EvmSignInput, caller: WrapperRecord): Promise<RequestEntry> {
  return wipingOnFailure(input.chipPin, async (handOver) => {
    deps.quota.check(caller.key, deps.now().getTime());
    assertCredentialAllowed(caller, input.credentialKey);
    const credential = findCredential(deps.cache(), input.credentialKey, 'evm');
    checkChipPin(deps, credential, input.chipPin, caller);
    const { entry, durable } = deps.registry.begin({
      kind: 'blockchain',
      credentialKey: credential.credential_key,
      wrapperKey: caller.key,
      params: { engine: credential.engine, txHash: Buffer.from(input.digest).toString('hex'), chainId: input.chainId, ...(input.chipPin ? { pinFromRequest: true as const } : {}) },
    });
    // Signing overlaps the fsync of the PENDING record; the 202 waits for it (nothing lost).
    handOver();
    deps.jobs.start(entry, durable, { credential, design: null, ...(input.chipPin ? { chipPin: input.chipPin } : {}) });
    return durably(deps, entry, [durable]);
  });
}
