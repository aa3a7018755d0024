/**
 * Local validation of every signature of a PDF, a report and never a signature: for
 * each, in file order, the signer, whether the digest and signature hold, the /ByteRange and its
 * coverage, the changes made after it and whether DocMDP allows them, the chain to the operator's
 * trust anchors with the revocation status of each certificate of it (RFC 5280 §6.3, from the
 * data the document and the signature carry, and what `verify --online` fetched: a revoked
 * certificate, or under `require` an undetermined one, makes the chain untrusted), the timestamp,
 * and the PAdES level reached (ETSI EN 319 142-1 §5: B-B, B-T, B-LT, B-LTA).
 * Each signature is bound to its own field: its value is its dictionary's own
 * /Contents, which its /ByteRange must skip exactly where the cross-reference data puts it.
 * Pure: the trust anchors and the time come in. The reader is the engine's own.
 *
 * Bounded: one validation per signature dictionary, however many fields point at it
 * (reported once, naming every field); at most MAX_SIGNATURES per document; the changes after
 * each revision analysed once (modifications.ts); text from the document cut at MAX_TEXT.
 */
import { PDFDict, PDFHexString, PDFName, PDFRef, PDFString } from 'pdf-lib';
import type { PadesLevel, RevocationPolicy } from '../../domain/pades';
import { leadingSequence } from '../../der/ber';
import { bytesEqual } from '../../der/der';
import { buildPath, isSelfIssued, subjectOf } from '../../pki/chain';
import { judgeAlgorithms } from '../../pki/algorithm-strength';
import type { PolicyInputs } from '../../pki/policy-tree';
import type { FoundIn, RevocationData, RevocationEntry } from '../../pki/revocation';
import { describeCertificate, type CertificateDescription } from '../../pki/describe-certificate';
import { contentsSpan, decodeHexDigits, docMdpPermission, forEachField, isLimit, PdfReader, refuseRangeErrors, tooComplex, unlessDamaged, type ByteRange, type ContentsSpan } from '../pdf';
import { checkCms, checkTimestampToken, digestWith } from '../cms';
import { vriKey } from '../sign';
import { readDssData } from './dss-read';
import { fieldLockOf, lockedChanges, lockPermissionOf, transformsOf } from './_mdp';
import { ChangeAnalysis, changesAllowed, type ModificationReport } from './modifications';
import { RevocationSources } from './revocation-sources';
import type { RevocationInfo } from '../../der/cms-fields';

export interface ChainReport {
  trusted: boolean;
  /** Subjects, signer first. */
  path: string[];
  failures: string[];
  /** The user-constrained policy set of RFC 5280 §6.1 (OIDs; anyPolicy 2.5.29.32.0 when unrestricted); empty unless trusted. */
  policies: string[];
}

export interface TimestampReport {
  time: string | null;
  valid: boolean;
  authority: string | null;
  chain: ChainReport;
  problems: string[];
}

export interface SignatureReport {
  valid: boolean;
  /** The first field (in the AcroForm's order) whose value is this signature. */
  fieldName: string;
  /** Every field whose /V is this signature dictionary, `fieldName` first: one signature, validated once. */
  fields: string[];
  kind: 'signature' | 'document_timestamp';
  subFilter: string | null;
  signer: CertificateDescription | null;
  /** /M as written (a claim, not a proof). */
  claimedTime: string | null;
  digestValid: boolean;
  byteRange: ByteRange | null;
  coversWholeDocument: boolean;
  modifications: ModificationReport;
  /** This signature's DocMDP permission when it certifies the document; `allowed` judges the changes after it. */
  docMdp: { certifies: null | 1 | 2 | 3; permission: null | 1 | 2 | 3; allowed: boolean };
  chain: ChainReport;
  timestamp: TimestampReport | null;
  revocation: RevocationEntry[];
  /** The signer's digest, signature scheme and key, and how long ETSI TS 119 312 accepts them (pki/algorithm-strength.ts). */
  algorithms: AlgorithmReport;
  level: PadesLevel | null;
  /** Why `valid` is false, one line each. */
  problems: string[];
  /** The certificates of `chain.path` (not on the wire): what an online revocation check asks about. */
  pathCertificates: Uint8Array[];
}

export interface AlgorithmReport {
  digest: string | null;
  signature: string | null;
  key: string | null;
  acceptableUntil: number | null;
  warnings: string[];
}

export interface ValidationReport {
  valid: boolean;
  signatures: SignatureReport[];
  /** The document's own problems: the damage a recovering read repaired. */
  problems: string[];
}

export interface ValidateOptions {
  trustAnchors: Uint8Array[];
  now: Date;
  /** Revocation data fetched for this check (`verify --online`), used beside the document's own. */
  fetched?: { ocsps: Uint8Array[]; crls: Uint8Array[] };
  /** What an undetermined revocation status means (RevocationPolicy); absent: `require`. */
  revocation?: RevocationPolicy;
  /** RFC 5280 §6.1.1 (c), (e)-(g) for every chain; RFC 5280's defaults when absent. */
  certificatePolicies?: PolicyInputs;
  /** Read a damaged file as far as it goes, naming each repair here (the report's `problems`). */
  damage?: string[];
}

/**
 * Signature dictionaries validated per document. Each costs a CMS parse, a signature check, a
 * chain and a revision analysis; documents people sign carry a handful, and 200 keeps the
 * answer near a second. More is refused (a 422) rather than reported in part: a report of the
 * first 200 would call a document "valid" that we did not read, and the wire has no
 * document-level problem to say so.
 */
export const MAX_SIGNATURES = 200;
/** Characters of document text (field names, /M) kept in a report: names are short, a megabyte is an attack on the answer's size. */
export const MAX_TEXT = 1_000;
/** (offset, length) pairs of a /ByteRange read: two in every signature we know of; more is an attack on the digest's cost. */
export const MAX_RANGES = 64;

interface Found {
  fieldNames: string[];
  sig: PDFDict;
  byteRange: ByteRange | null;
  /**
   * The /ByteRange as (offset, length) pairs (§12.8.1), however many: the digest is over them
   * all, as pyHanko and pdfsig compute it; `byteRange` is set only for the usual four numbers.
   */
  ranges: [number, number][] | null;
  /** The signature dictionary's object, or (a /V written inside its field) the field's. */
  sigRef: PDFRef | null;
  fieldRef: PDFRef | null;
}

/** A text string (§7.9.2.2) decoded, at most MAX_TEXT characters of it (pdf-lib decodes into call arguments: a long one is a RangeError). */
function text(v: unknown): string | null {
  if (!(v instanceof PDFString || v instanceof PDFHexString)) return null;
  const raw = v.asString();
  // 4 raw characters per decoded one covers UTF-16 in hex, the longest encoding.
  if (raw.length <= 4 * MAX_TEXT) return v.decodeText().slice(0, MAX_TEXT);
  const head = v instanceof PDFHexString ? PDFHexString.of(raw.slice(0, 4 * MAX_TEXT)) : PDFString.of(raw.slice(0, 4 * MAX_TEXT));
  return `${head.decodeText().slice(0, MAX_TEXT)}…`;
}

/**
 * The signature dictionaries of the AcroForm, each once with every field naming it, in file order.
 * A field whose value cannot be read is named in `unreadable` (a problem of the document: a
 * signature that is there but cannot be judged is never silently left out), and a value over one
 * of the engine's limits refuses the document like any other.
 */
function listSignatures(reader: PdfReader, catalog: PDFDict, unreadable: string[]): Found[] {
  const bySig = new Map<PDFDict, Found>();
  const acroForm = reader.getDict(catalog, 'AcroForm');
  forEachField(reader, acroForm && reader.getArray(acroForm, 'Fields'), (field, type, fieldRef) => {
    if (type !== PDFName.of('Sig')) return;
    let sig;
    try {
      sig = reader.get(field, 'V');
    } catch (e) {
      if (isLimit(e)) throw e;
      unreadable.push(`signature field ${text(reader.get(field, 'T')) ?? '(unnamed)'}: its value cannot be read (${(e as Error).message})`);
      return;
    }
    if (!(sig instanceof PDFDict)) return;
    const name = text(reader.get(field, 'T')) ?? '';
    // The reader returns one object per indirect object: fields sharing a /V share the dictionary.
    const known = bySig.get(sig);
    if (known) {
      known.fieldNames.push(name);
      return;
    }
    if (bySig.size === MAX_SIGNATURES) throw tooComplex(`more than ${MAX_SIGNATURES} signatures (at most ${MAX_SIGNATURES} are validated per document)`);
    const nums = reader.getArray(sig, 'ByteRange')?.asArray().map((n) => Number(n.toString()));
    const pairs = nums && nums.length >= 2 && nums.length <= 2 * MAX_RANGES && nums.length % 2 === 0 && nums.every((n) => Number.isSafeInteger(n) && n >= 0);
    const ranges = pairs ? nums.flatMap((n, i) => (i % 2 === 0 ? [[n, nums[i + 1]!] as [number, number]] : [])) : null;
    const byteRange = pairs && nums.length === 4 ? (nums as ByteRange) : null;
    const v = field.get(PDFName.of('V'));
    bySig.set(sig, { fieldNames: [name], sig, byteRange, ranges, sigRef: v instanceof PDFRef ? v : null, fieldRef: fieldRef ?? null });
  });
  const out = [...bySig.values()];
  // File order: by where each signed revision ends.
  return out.sort((a, b) => signedEnd(a, Infinity) - signedEnd(b, Infinity));
}

/** The signature's field dictionary, when it is an object of its own. */
function fieldDict(reader: PdfReader, f: Found): PDFDict | undefined {
  const d = f.fieldRef ? reader.resolve(f.fieldRef) : undefined;
  return d instanceof PDFDict ? d : undefined;
}

/** Where the bytes a signature covers end (the end of its revision); `otherwise` when its /ByteRange is unreadable. */
function signedEnd(f: Found, otherwise: number): number {
  return f.ranges ? Math.max(...f.ranges.map(([at, length]) => at + length)) : otherwise;
}

/**
 * §12.8.1: the signature value is the signature dictionary's own /Contents (never whatever the
 * /ByteRange happens to skip), and the /ByteRange [0, gap start, gap end, rest] skips exactly
 * that string: of this dictionary, at the offset the cross-reference data gives its object
 * (pdf/signature-span.ts). A /ByteRange copied from another signature skips that one's /Contents:
 * the value is still this dictionary's (so the digest fails as pdfsig's does, or, with the
 * other's /Contents copied too, holds for the other's bytes), and the signature is invalid
 * because it is not bound to its field. Returns the value's bytes.
 */
function contentsOf(pdf: Uint8Array, reader: PdfReader, f: Found, problems: string[]): Uint8Array | null {
  const ranges = f.ranges;
  if (!ranges) return problems.push(`/ByteRange is not pairs of non-negative integers (offset, length), at most ${MAX_RANGES}`), null;
  if (ranges.some(([at, length]) => at + length > pdf.length) || (f.byteRange && (f.byteRange[0] !== 0 || f.byteRange[1] >= f.byteRange[2]))) {
    return problems.push(`/ByteRange [${ranges.flat().join(' ')}] does not fit the file`), null;
  }
  const own = f.sig.get(PDFName.of('Contents'));
  // ISO 32000-2 §12.8.1: the /ByteRange excludes "the signature value itself", the string in the
  // signature dictionary. One written as another object is not bound to the dictionary the
  // signature covers; pyHanko refuses it as well ("/Contents must be string-like"), where DSS and
  // pdfsig follow the reference.
  if (own instanceof PDFRef) return problems.push(`/Contents is an indirect object (${own.objectNumber} ${own.generationNumber} R), not the hex string in the signature dictionary that the /ByteRange must exclude (ISO 32000-2 §12.8.1)`), null;
  if (!(own instanceof PDFHexString)) return problems.push('/Contents is not a hex string'), null;
  const br = f.byteRange;
  const span = contentsSpan(pdf, reader.xref.entries, reader.context, f.sigRef, f.fieldRef);
  const bound = br !== null && typeof span !== 'string' && span.start === br[1] && span.end === br[2];
  if (!br) problems.push(`the /ByteRange [${ranges.flat().join(' ')}] is not [0 start end length] around this signature dictionary's own /Contents: the signature is not bound to its field`);
  else if (typeof span === 'string') problems.push(`the signature is not bound to its field: ${span}`);
  else if (!bound) problems.push(unbound(reader, f, br, span));
  // Bound, the gap is the string itself: decoded from the file, no copy of a large /Contents.
  const bytes = bound ? decodeHexDigits(pdf, br[1] + 1, br[2] - 1) : decodeHexDigits(Buffer.from(own.asString(), 'latin1'), 0, own.asString().length);
  if (!bytes) return problems.push('/Contents is not a hex string'), null;
  return bytes;
}

/**
 * Why the /ByteRange's gap is not this dictionary's /Contents: the dictionary written again by a
 * later update (the gap is the /Contents of its copy in the signed revision: what the file shows
 * now, a /Reason or /M included, is not what was signed), or a gap somewhere else.
 */
function unbound(reader: PdfReader, f: Found, br: ByteRange, span: ContentsSpan): string {
  const tail = 'the signature is not bound to its field';
  const signed = unlessDamaged(() => {
    const revision = reader.revision(br[2] + br[3]);
    return contentsSpan(revision.pdf, revision.xref.entries, reader.context, f.sigRef, f.fieldRef);
  });
  if (signed && typeof signed !== 'string' && signed.start === br[1] && signed.end === br[2]) {
    return `the signature dictionary (object ${span.objectNumber}) was written again after it was signed: the /ByteRange skips the /Contents of its signed copy at byte ${signed.offset}, not of the one at byte ${span.offset}; ${tail}`;
  }
  return `the /ByteRange skips bytes ${br[1]} to ${br[2]}, not this signature dictionary's own /Contents (bytes ${span.start} to ${span.end} of object ${span.objectNumber}): ${tail}`;
}

function chainReport(leaf: Uint8Array | null, pool: Uint8Array[], o: ValidateOptions, at: Date, data: RevocationData): ChainReport & { certs: Uint8Array[]; revocation: RevocationEntry[] } {
  if (!leaf) return { trusted: false, path: [], failures: ['no signer certificate'], policies: [], certs: [], revocation: [] };
  const r = buildPath(leaf, pool, o.trustAnchors, at, { revocation: { data, policy: o.revocation ?? 'require' }, certificatePolicies: o.certificatePolicies });
  return { trusted: r.trusted, path: r.path.map(subjectOf), failures: r.failures, policies: r.policies, certs: r.path, revocation: r.revocation };
}

function describe(cert: Uint8Array | null): CertificateDescription | null {
  try {
    return cert ? describeCertificate(cert) : null;
  } catch {
    return null;
  }
}

/** Every certificate below the anchor has a good status from the document's /DSS (ETSI EN 319 142-1 §5.4.2: B-LT's validation data). */
function coveredByDss(revocation: RevocationEntry[]): boolean {
  return revocation.length > 0 && revocation.every((r) => r.status === 'good' && r.foundIn === 'dss');
}

export function validatePdf(pdf: Uint8Array, o: ValidateOptions): ValidationReport {
  return refuseRangeErrors(() => validate(pdf, o));
}

function validate(pdf: Uint8Array, o: ValidateOptions): ValidationReport {
  // A stranger's document may be damaged: with `damage`, broken cross-reference data is rebuilt
  // by scanning the file and each repair is named there, as qpdf, pdfsig and DSS read it.
  const reader = new PdfReader(pdf, o.damage ? { damage: o.damage } : {});
  const analysis = new ChangeAnalysis(reader);
  const dssCovered = dssCoveredBy(reader);
  const { dict: catalog } = reader.catalog();
  const dss = readDssData(reader, catalog);
  const revocationSources = new RevocationSources();
  /** The revocation data one signature's chains may use: the document's, its own CMS's, then what was fetched. */
  const revocationData = (own: RevocationInfo[]): RevocationData =>
    revocationSources.data([
      { foundIn: 'dss', info: dss },
      ...own.map((info) => ({ foundIn: 'signature' as FoundIn, info })),
      ...(o.fetched ? [{ foundIn: 'online' as FoundIn, info: o.fetched }] : []),
    ]);
  const unreadable: string[] = [];
  const found = listSignatures(reader, catalog, unreadable);
  // ISO 32000-2 §12.8.2.2.1: one certification signature, the first; its /P governs. Without a
  // DocMDP transform in any signature, the catalog's /Perms /DocMDP (writers that put it only there).
  const transforms = found.map((f) => transformsOf(reader, f.sig));
  const certifierIndex = transforms.findIndex((t) => t.docMdp !== null);
  const permission = certifierIndex >= 0 ? transforms[certifierIndex]!.docMdp : docMdpPermission(reader, catalog);
  const catalogCertifier = certifierIndex < 0 ? reader.resolve(reader.getDict(catalog, 'Perms')?.get(PDFName.of('DocMDP'))) : undefined;
  // ISO 32000-2 §12.7.5.5 Table 236: a signed field's /Lock /P narrows what may change from then
  // on; each signature is judged by the narrowest permission in effect at it.
  const lockPermissions = found.map((f) => lockPermissionOf(reader, fieldDict(reader, f)));
  const permissionAt = (index: number): null | 1 | 2 | 3 =>
    [permission, ...lockPermissions.slice(0, index + 1)].reduce<null | 1 | 2 | 3>((a, b) => (a === null ? b : b === null ? a : a < b ? a : b), null);
  const reports: SignatureReport[] = [];
  for (const [index, f] of found.entries()) {
    const problems: string[] = [];
    const subFilter = f.sig.get(PDFName.of('SubFilter')) instanceof PDFName ? (f.sig.get(PDFName.of('SubFilter')) as PDFName).decodeText() : null;
    const isDts = reader.get(f.sig, 'Type') === PDFName.of('DocTimeStamp') || subFilter === 'ETSI.RFC3161';
    const contents = contentsOf(pdf, reader, f, problems);
    const br = f.byteRange;
    const ranges = f.ranges && contents ? f.ranges.map(([at, length]) => pdf.subarray(at, at + length)) : [];
    const end = signedEnd(f, pdf.length);
    const report: SignatureReport = {
      valid: false, fieldName: f.fieldNames[0]!, fields: f.fieldNames, kind: isDts ? 'document_timestamp' : 'signature', subFilter, signer: null,
      claimedTime: text(reader.get(f.sig, 'M')), digestValid: false, byteRange: br, coversWholeDocument: f.ranges !== null && end === pdf.length,
      modifications: { level: 'none', changes: [], changesTotal: 0 }, docMdp: { certifies: null, permission: permissionAt(index), allowed: true },
      chain: { trusted: false, path: [], failures: [], policies: [] }, timestamp: null, revocation: [], level: null, problems, pathCertificates: [],
      algorithms: { digest: null, signature: null, key: null, acceptableUntil: null, warnings: [] },
    };
    reports.push(report);
    if (index === certifierIndex || (catalogCertifier !== undefined && f.sig === catalogCertifier)) report.docMdp.certifies = permission;
    else if (transforms[index]!.docMdp !== null) problems.push(`it claims to certify the document (DocMDP P=${transforms[index]!.docMdp}), but only the first signature may (ISO 32000-2 §12.8.2.2.1): ${found[certifierIndex]!.fieldNames[0]} certifies it`);
    if (index === certifierIndex && index > 0) problems.push(`it certifies the document (DocMDP), but a certification signature must be the first (ISO 32000-2 §12.8.2.2.1); ${found[0]!.fieldNames[0]} was signed before it`);
    try {
      report.modifications = analysis.analyse(end);
    } catch (e) {
      if (isLimit(e)) throw e;
      report.modifications = { level: 'other', changes: [`the changes after it cannot be read: ${(e as Error).message}`], changesTotal: 1 };
    }
    // ISO 32000-2 §12.8.2.4: a FieldMDP lock makes a change to a locked field invalidate the signature, whatever DocMDP allows.
    const locked = lockedChanges([...transforms[index]!.fieldLocks, ...fieldLockOf(reader, fieldDict(reader, f))], analysis.changedFields(end));
    if (locked.length > 0) problems.push(`changes after it are not allowed by its FieldMDP lock (ISO 32000-2 §12.8.2.4): ${locked.map((n) => `field '${n}' changed`).join('; ')}`);
    const effective = report.docMdp.permission;
    report.docMdp.allowed = changesAllowed(report.modifications.level, effective);
    if (!report.docMdp.allowed) {
      const m = report.modifications;
      const omitted = m.changesTotal - m.changes.length;
      const by = effective === null ? '' : effective === permission ? ` by DocMDP P=${effective}` : ` by a field lock's P=${effective} (ISO 32000-2 §12.7.5.5)`;
      problems.push(`changes after it are not allowed${by}: ${m.changes.join('; ') || m.level}${omitted > 0 ? `; and ${omitted} more` : ''}`);
    }
    if (!contents) continue;
    // The DER (or BER) CMS at the start of /Contents, without the zero padding after it.
    const cms = leadingSequence(contents);
    let signer: Uint8Array | null;
    let pool: Uint8Array[];
    let bestTime = o.now;
    /** The signature timestamp's TSA path and the certificates it was built from (B-LT covers them too). */
    let tsaPath: Uint8Array[] = [];
    let tsaPool: Uint8Array[] = [];
    let tsaRevocation: RevocationEntry[] = [];
    let hasEss = false;
    let data: RevocationData;
    let algorithms: { digest: string | null; signature: string | null; key: string | null };
    if (isDts) {
      const ts = checkTimestampToken(cms, (alg) => digestWith(alg, ranges));
      report.digestValid = ts.ok;
      problems.push(...ts.problems);
      signer = ts.signerCertificate;
      pool = [...ts.certificates, ...dss.certs];
      report.timestamp = { time: ts.time?.toISOString() ?? null, valid: ts.ok, authority: signer ? subjectOf(signer) : null, chain: { trusted: false, path: [], failures: [], policies: [] }, problems: ts.problems };
      data = revocationData([ts.revocation]);
      algorithms = ts.algorithms;
      if (ts.ok && ts.time) bestTime = ts.time;
    } else {
      const check = checkCms(cms, ranges);
      report.digestValid = check.ok;
      problems.push(...check.problems);
      signer = check.signerCertificate;
      pool = [...check.certificates, ...dss.certs];
      // ETSI EN 319 142-1 §6.3: a PAdES baseline CMS is detached and signs ESS signing-certificate-v2
      // among its signed attributes; encapsulated content or none of them: valid maybe, but no level.
      hasEss = check.detached && check.hasSigningCertificateV2;
      data = revocationData([check.revocation]);
      algorithms = check.algorithms;
      if (check.timestampToken && check.signatureValue) {
        const value = check.signatureValue;
        const ts = checkTimestampToken(check.timestampToken, (alg) => digestWith(alg, [value]));
        data = revocationData([check.revocation, ts.revocation]);
        const tsa = chainReport(ts.signerCertificate, [...ts.certificates, ...dss.certs], o, ts.time ?? o.now, data);
        tsaPath = tsa.certs;
        tsaRevocation = tsa.revocation;
        tsaPool = [...ts.certificates, ...dss.certs];
        report.timestamp = { time: ts.time?.toISOString() ?? null, valid: ts.ok, authority: ts.signerCertificate ? subjectOf(ts.signerCertificate) : null, chain: { trusted: tsa.trusted, path: tsa.path, failures: tsa.failures, policies: tsa.policies }, problems: ts.problems };
        if (!ts.ok) problems.push(...ts.problems.map((p) => `signature timestamp: ${p}`));
        // The time the timestamp proves is the time the chain is judged at (the point of B-T and above).
        if (ts.ok && ts.time && tsa.trusted) bestTime = ts.time;
      }
    }
    report.signer = describe(signer);
    // ETSI TS 119 312 at the time the signature is judged: its timestamp's, when trusted.
    const strength = judgeAlgorithms(algorithms.digest, algorithms.key, bestTime);
    report.algorithms = { ...algorithms, acceptableUntil: strength.acceptableUntil, warnings: strength.warnings };
    problems.push(...strength.tooWeak.map((w) => `too weak to trust: ${w}`));
    const chain = chainReport(signer, pool, o, bestTime, data);
    report.chain = { trusted: chain.trusted, path: chain.path, failures: chain.failures, policies: chain.policies };
    if (isDts && report.timestamp) report.timestamp.chain = report.chain;
    problems.push(...chain.failures.map((x) => `chain: ${x}`));
    report.pathCertificates = chain.certs;
    // A revocation, and under `require` an undetermined status, is among the chain's failures.
    report.revocation = chain.revocation;
    if (!isDts && subFilter === 'ETSI.CAdES.detached' && report.digestValid && hasEss) {
      report.level = 'B-B';
      const laterDts = found.some((g) => g !== f && g.byteRange && g.byteRange[2] + g.byteRange[3] > end && reader.get(g.sig, 'Type') === PDFName.of('DocTimeStamp'));
      if (report.timestamp?.valid || laterDts) report.level = 'B-T';
      const covered = coveredByDss(report.revocation);
      const inDss = chain.certs.every((c) => dss.certs.some((d) => bytesEqual(d, c)) || isSelfIssued(c));
      // ETSI EN 319 142-1 §5.4.2: the validation data of B-LT is that of the signature *and* of
      // its timestamp. The TSA's chain must reach a root from what the document holds (the token's
      // certificates and the DSS) with embedded revocation data for each certificate below it; a
      // DSS missing the TSA's certificates stays B-T, as EU DSS judges it ("not LTA, missing certs").
      const tsaCovered =
        !report.timestamp ||
        (tsaPath.length > 0 &&
          isSelfIssued(tsaPath[tsaPath.length - 1]!) &&
          tsaPath.every((c) => tsaPool.some((d) => bytesEqual(d, c)) || isSelfIssued(c)) &&
          tsaRevocation.every((r) => r.status === 'good' && r.foundIn === 'dss'));
      if (report.level === 'B-T' && covered && inDss && tsaCovered && dss.vriKeys.has(vriKey(contents))) report.level = 'B-LT';
    }
    report.valid = problems.length === 0;
  }
  // B-LTA: a valid document timestamp over a revision that holds this signature's DSS data.
  for (const r of reports) {
    if (r.level !== 'B-LT' || !r.byteRange) continue;
    const sigEnd = r.byteRange[2] + r.byteRange[3];
    const lta = reports.some((t) => t.kind === 'document_timestamp' && t.digestValid && t.byteRange && t.byteRange[2] + t.byteRange[3] > sigEnd && dssCovered(t.byteRange[2] + t.byteRange[3]));
    if (lta) r.level = 'B-LTA';
  }
  const problems = [...reader.damage, ...unreadable];
  return { valid: reports.length > 0 && reports.every((r) => r.valid) && problems.length === 0, signatures: reports, problems };
}

/**
 * True when the revision a document timestamp signs, ending at `end`, holds a /DSS: one added
 * before it, or in the same incremental update as the timestamp, which covers it then as well
 * (ETSI EN 319 142-1 §5.5: the timestamp covers the validation data). Asked once per end, the
 * revision read with the document's reader scope.
 */
function dssCoveredBy(reader: PdfReader): (end: number) => boolean {
  const known = new Map<number, boolean>();
  return (end) => {
    let answer = known.get(end);
    if (answer === undefined) {
      answer =
        unlessDamaged(() => {
          const revision = end >= reader.pdf.length ? reader : reader.revision(end);
          return revision.getDict(revision.catalog().dict, 'DSS') !== undefined;
        }) ?? false;
      known.set(end, answer);
    }
    return answer;
  };
}
