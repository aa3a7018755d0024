/**
 * The PAdES kind: its table, its credentials, and its accept (the check before the 202). Its job
 * is pades-job.ts, loaded on first use.
 */
import { newRequestId } from '../../config/ids';
import { InvalidInputError } from '../../domain/errors';
import type { DocMdpPermission, PadesLevel } from '../../domain/pades';
import { algorithmOfCertificate } from '../../pades/cms';
import type { StampDecision } from '../../pades/stamp';
import { describeCertificate } from '../../pki/describe-certificate';
import { stampSpecOf, type CachedCredential, type CachedDesign, type CatalogCache, type WrapperRecord } from '../../store/catalog-types';
import { FILE_MIN_BYTES, isFileBytes, type DocumentBytes } from '../../store/file-bytes';
import type { KindParams, RequestEntry } from '../../store/request-store';
import { acceptChecks, checkVariables, durably, wipingOnFailure, type AcceptDeps } from '../accept';
import type { AcceptedCatalog, JobDeps } from '../job-types';
import type { CredentialType, SignatureKind } from '../kind';
import { prepareFields } from '../stamp-values';

/**
 * What a PAdES request needs to run or resume (never the PDF: the document store keeps it).
 * `level`: the one the request asked for; null or absent: the service's default when
 * it runs. `certify`: the DocMDP permission of a certification signature; absent or null: an
 * approval signature.
 */
export type PadesParams = KindParams & {
  designKey: string | null;
  variables: Record<string, string>;
  reason: string | null;
  location: string | null;
  signerName: string | null;
  level?: PadesLevel | null;
  certify?: DocMdpPermission | null;
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The signer certificate's description: read at sync (platform/catalog-screen.ts) and kept in the
 * cache; only a cache written before that is read here, and a certificate that does not read then
 * leaves its credential out of the list (null) instead of failing the list for everyone. The
 * next sync names it.
 */
function signerOf(c: CachedCredential): CachedCredential['certificate'] | null | 'unreadable' {
  if (c.certificate) return c.certificate;
  const signer = c.certificate_chain?.[0];
  if (!signer) return null;
  try {
    return describeCertificate(new Uint8Array(Buffer.from(signer, 'base64')));
  } catch {
    return 'unreadable';
  }
}

/**
 * Credentials of type "pades" (PLATFORM.md "Catalogue"): a certificate chain, signer first; on a
 * chip, an RSA or P-256 key (the certificate names which).
 */
export const padesCredentials: CredentialType = {
  name: 'pades',
  takesDesign: true,
  readFields: (entry) => ({ certificate_chain: entry.list('certificate_chain', (x) => typeof x === 'string' && BASE64.test(x), 'base64 DER, signer first') as string[] }),
  bindChipKey: (c, key) => (key.algorithm === 'secp256k1' ? { problem: `the chip key ${c.chip_key_id} is a secp256k1 key, not a PAdES signing key` } : { fields: {} }),
  algorithmOf: (c) => (algorithmOfCertificate(new Uint8Array(Buffer.from(c.certificate_chain![0]!, 'base64'))) === 'p256' ? 'ecdsa-p256' : 'rsa-pkcs1-sha256'),
  present: (c) => {
    const certificate = signerOf(c);
    return certificate === 'unreadable' ? null : { certificate, certificate_chain: c.certificate_chain ?? [] };
  },
};

/** PLATFORM.md: the digest of the CMS signed attributes is kind "pades", SHA-256, answered as `signature_base64`. */
export const PADES_WIRE = { kind: 'pades', digestAlgorithm: 'sha256', answer: 'signature' } as const;

/** The level the request asked for, else the service's default now (serve --pades-level). */
export function levelOf(entry: RequestEntry<PadesParams>, deps: Pick<JobDeps, 'padesLevel' | 'tsaUrl'>): PadesLevel {
  return entry.params.level ?? deps.padesLevel ?? (deps.tsaUrl ? 'B-T' : 'B-B');
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

/** POST /v1/pades/sign after its route parsed it (api/routes/pades-sign.ts): everything checked before the 202, then durable. */
export function acceptPades(deps: AcceptDeps, input: PadesSignInput, caller: WrapperRecord): Promise<RequestEntry> {
  return wipingOnFailure(input.chipPin, async (handOver) => {
    const { cache, credential } = acceptChecks(deps, padesKind, { credentialKey: input.credentialKey, chipPin: input.chipPin }, caller);
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
      // A small document is prepared with its check (one trip to a PDF worker and one
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
      // The stamp's place found here is carried to prepare (the page's content walked once).
      placement = (await work.checkForSigning(pdf, checkStamp, input.certify)).placement;
    }
    // B-T and above take their timestamps from the TSA (ETSI EN 319 142-1 §5.3, §5.4): refused before 202.
    if (level !== 'B-B' && !deps.pades.tsaUrl) {
      throw new InvalidInputError(`level ${level} needs a timestamp authority and this service has none (serve --tsa-url); ask for level B-B or configure one`);
    }
    const requestId = newRequestId();
    if (repairs.length > 0) deps.log.warn(`${requestId}: pdf_base64 repaired (${repairs.join(', ')})`);
    // The document and the PENDING record are made durable while signing already runs on the
    // in-memory copy; the 202 and the final state wait for both. A small document is in the
    // record itself (one fsync); a larger one's work file is written beside it (two at once), and
    // a crash in between leaves an orphan work file (removed at start-up) or a PENDING request
    // without its document, which recovery ends in ERROR: never a lost 202.
    const { written, journal } = deps.documents.admit(requestId, pdf);
    const { entry, durable } = deps.registry.begin({ id: requestId, kind: padesKind.name, credentialKey: credential.credential_key, wrapperKey: caller.key, params, ...(journal ? { input: journal } : {}) });
    handOver();
    deps.jobs.start(entry, Promise.all([durable, written]).then(() => undefined), { credential, design, placement, ...(prepared ? { prepared } : {}), ...(input.chipPin ? { chipPin: input.chipPin } : {}) });
    return durably(deps, entry, [durable, written]);
  });
}

export const padesKind: SignatureKind<PadesParams> = {
  name: 'pades',
  title: 'PAdES signing',
  credential: padesCredentials,
  document: { field: 'pdf_base64', mediaType: 'application/pdf' },
  platform: PADES_WIRE,
  // Its document comes as base64 in JSON or as the raw body: api/routes/pades-sign.ts.
  route: null,
  resultSchema: {
    name: 'PadesResult',
    schema: {
      type: 'object',
      required: ['request_id', 'status', 'pdf_base64'],
      properties: {
        request_id: { type: 'string' },
        status: { const: 'DONE' },
        pdf_base64: { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/pdf', description: 'The signed PDF: the input bytes are its exact prefix (incremental update)' },
        warnings: { type: 'array', items: { type: 'string' }, description: 'Present when something deserves a look, e.g. a stamp moved off the page\'s content to free space, or a stamp line cut with "…" to fit at 6 pt ("stamp line 1 was shortened …")' },
        stamp: {
          type: 'object',
          required: ['page', 'page_count', 'rect'],
          description: 'Where the visible signature is, so a person can be told where to look; absent for an invisible signature',
          properties: {
            page: { type: ['integer', 'null'], minimum: 1, description: 'Its page, counted from 1 (null only for a form field whose page is not in the page tree)' },
            page_count: { type: 'integer', minimum: 1, description: 'Pages in the signed document (one more than the input with `new_page`)' },
            rect: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4, description: 'Its box [x1, y1, x2, y2] in points from the page\'s lower-left corner, as its /Rect' },
          },
        },
      },
    },
  },
  job: () => import('./pades-job').then((m) => m.padesJob),
};
