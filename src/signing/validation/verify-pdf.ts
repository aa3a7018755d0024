/**
 * The local validation service behind `POST /v1/pades/verify` and `localsign verify`:
 * the trust anchors the operator configured (`--trust FILE`, PEM), the engine's validator
 * (pades/validate/validate.ts, run in a PDF worker) and the report's wire shape (CONTRACT: `{valid, signatures: [{valid, …}]}`
 * in file order, and the document's own `problems`). A report, never a signature: nothing is
 * stored and nothing leaves the machine.
 */
import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../../domain/errors';
import type { DocumentWork } from '../../workers/document-work';
import type { SignatureReport, ValidationReport } from '../../pades/validate';
import { collectValidationData, type RevocationSources } from '../online';
import type { RevocationPolicy } from '../../domain/pades';
import { osErrorInWords } from '../../domain/os-errors';

const PEM_CERT = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g;

/** Every certificate of a PEM file (DER accepted for a single certificate). */
export function loadTrustAnchors(path: string | null): Uint8Array[] {
  if (!path) return [];
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (e) {
    throw new ConfigurationError(`cannot read the trust anchors file ${path}: ${osErrorInWords(e)}`, { cause: e });
  }
  if (data[0] === 0x30) return [new Uint8Array(data)];
  const certs = [...data.toString('latin1').matchAll(PEM_CERT)].map((m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')));
  if (certs.length === 0) throw new ConfigurationError(`the trust anchors file ${path} holds no PEM certificate`);
  return certs;
}

function wireSignature(s: SignatureReport): Record<string, unknown> {
  return {
    valid: s.valid,
    field: s.fieldName,
    // Every field whose value is this signature dictionary (one validation for all).
    fields: s.fields,
    kind: s.kind,
    sub_filter: s.subFilter,
    signer: s.signer,
    claimed_signing_time: s.claimedTime,
    digest_valid: s.digestValid,
    byte_range: s.byteRange,
    covers_whole_document: s.coversWholeDocument,
    changes_after: {
      level: s.modifications.level,
      changes: s.modifications.changes,
      // `changes` lists at most 50 (200 fields gave a 15 MB answer); this counts them all.
      changes_total: s.modifications.changesTotal,
      allowed: s.docMdp.allowed,
      docmdp_permission: s.docMdp.permission,
    },
    certifies: s.docMdp.certifies,
    chain: s.chain,
    timestamp: s.timestamp && {
      time: s.timestamp.time,
      valid: s.timestamp.valid,
      authority: s.timestamp.authority,
      trusted: s.timestamp.chain.trusted,
      chain_failures: s.timestamp.chain.failures,
      problems: s.timestamp.problems,
    },
    revocation: s.revocation.map((r) => ({
      certificate: r.certificate,
      status: r.status,
      source: r.source,
      found_in: r.foundIn,
      revoked_at: r.revokedAt,
      reason: r.reason,
      checked_at: r.checkedAt,
      problems: r.problems,
    })),
    algorithms: {
      digest: s.algorithms.digest,
      signature: s.algorithms.signature,
      key: s.algorithms.key,
      acceptable_until: s.algorithms.acceptableUntil,
      warnings: s.algorithms.warnings,
    },
    level: s.level,
    problems: s.problems,
  };
}

/** The report on the wire (`POST /v1/pades/verify`, `verify --json`). */
export interface WireReport {
  valid: boolean;
  signatures: Record<string, unknown>[];
  /**
   * What is wrong with the document as a whole, always present (empty for a sound file): damaged
   * cross-reference data read by scanning the file, or why it cannot be read at all (CONTRACT:
   * "the reason in each signature's problems or a document-level problems").
   */
  problems: string[];
}

export function wireReport(r: ValidationReport): WireReport {
  return { valid: r.valid, signatures: r.signatures.map(wireSignature), problems: r.problems };
}

/**
 * The report of a file that is not a PDF at all (no `%PDF-` header): `verify` prints a report for
 * every file it could open, where the route answers 422 before any work.
 */
export function notAPdfReport(reason: string): WireReport {
  return { valid: false, signatures: [], problems: [reason] };
}

/** At most this many OCSP, CRL and caIssuers fetches for one document (`verify --online`). */
const ONLINE_FETCHES_PER_DOCUMENT = 32;

export interface VerifyOptions {
  /** Fetch the revocation data the document lacks (`verify --online`); never the default. */
  online?: Omit<RevocationSources, 'now'>;
  /** What an undetermined revocation status means; absent: `require` (docs/integrators.md says why). */
  revocation?: RevocationPolicy;
}

/**
 * Validates `pdf` (already decoded) against `trustAnchors` at `now`, in a PDF worker (the event
 * loop never parses a document; at most `work.limits.verifications` run at once). A PDF
 * that cannot be fully read is a report saying why (damage repaired by scanning, or no reading at
 * all: document-tasks.ts); one over the per-document time or memory limit, or an engine limit, is a
 * 422 naming it.
 * With `online` (asked for, never the default), certificates the document holds no revocation
 * data for are asked about over the network (signing/online/revocation-client.ts), one fetch at a time
 * and at most ONLINE_FETCHES_PER_DOCUMENT per document (a document names the URLs: it must not
 * make the service fetch hundreds at once), and the answers are judged beside the embedded ones;
 * a fetch that fails is named in the report.
 */
export async function verifyPdf(work: DocumentWork, pdf: Uint8Array, trustAnchors: Uint8Array[], now: Date, options: VerifyOptions = {}): Promise<WireReport> {
  const { online, revocation = 'require' } = options;
  return work.verification(async () => {
    // The worker's answer carries the document's problems (DocumentResults['validate']).
    const first = await work.validate(pdf, { trustAnchors, now, revocation });
    if (!online) return wireReport(first);
    const fetched = { ocsps: [] as Uint8Array[], crls: [] as Uint8Array[] };
    const failures = new Map<number, string>();
    const budget = { left: ONLINE_FETCHES_PER_DOCUMENT };
    for (const [i, s] of first.signatures.entries()) {
      if (!s.revocation.some((r) => r.status === 'no_data') || s.pathCertificates.length === 0) continue;
      try {
        // `keepRevoked`: a revocation found is data for the validator to judge, not a failure to fetch.
        const data = await collectValidationData(s.pathCertificates, [], { ...online, now, budget, keepRevoked: true });
        fetched.ocsps.push(...data.ocsps);
        fetched.crls.push(...data.crls);
      } catch (e) {
        failures.set(i, (e as Error).message);
      }
    }
    const second = await work.validate(pdf, { trustAnchors, now, fetched, revocation });
    second.signatures.forEach((s, i) => {
      const failure = failures.get(i);
      if (failure) for (const r of s.revocation) if (r.status === 'no_data') r.problems.push(`online check failed: ${failure}`);
    });
    return wireReport(second);
  });
}

/** Characters of a field name and of a signer's subject shown on a verify line. */
const FIELD_SHOWN = 80;
const SIGNER_SHOWN = 200;
const shortened = (text: string, max: number) => ([...text].length > max ? `${[...text].slice(0, max - 1).join('')}…` : text);

/**
 * A revocation check that could not be made, said on the terminal too: under `--revocation
 * if-available` it does not make the signature invalid, and a bare VALID would hide it.
 */
function unchecked(s: WireReport['signatures'][number]): string[] {
  // An invalid signature says why already; the note is for a VALID that would otherwise hide it.
  if (!s.valid) return [];
  const entries = (s.revocation as { certificate: string; status: string; problems: string[] }[]) ?? [];
  const problems = (s.problems as string[]).join('\n');
  return entries
    .filter((r) => r.status === 'no_data' && !problems.includes(r.certificate))
    .map((r) => `     - note: the revocation of ${shortened(r.certificate, SIGNER_SHOWN)} was not checked: ${r.problems.length > 0 ? r.problems.join('; ') : 'no CRL or OCSP response about it was found'}`);
}

/** One line per signature, for the terminal; the document's problems first. */
export function describeReport(r: Omit<WireReport, 'problems'> & { problems?: string[] }): string {
  const lines = (r.problems ?? []).map((p) => `document: ${p}`);
  lines.push(...r.signatures.map((s, i) => {
    const signer = (s.signer as { subject?: string } | null)?.subject ?? 'unknown signer';
    // The field name comes from the document: cut short, so no padding pushes the verdict out of sight.
    const head = `${i + 1}. ${shortened(String(s.field), FIELD_SHOWN)} (${String(s.kind)}${s.level ? `, ${String(s.level)}` : ''}): ${s.valid ? 'VALID' : 'INVALID'} - ${shortened(signer, SIGNER_SHOWN)}`;
    const problems = (s.problems as string[]).map((p) => `     - ${p}`);
    return [head, ...problems, ...unchecked(s)].join('\n');
  }));
  if (r.signatures.length === 0) lines.push('no signatures');
  return [...lines, `overall: ${r.valid ? 'VALID' : 'INVALID'}`].join('\n');
}
