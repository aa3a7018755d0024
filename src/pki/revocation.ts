/**
 * The revocation status of one certificate of a certification path (RFC 5280 §6.1.3 (a)(3)),
 * from the CRLs and OCSP responses at hand: CRLs by the algorithm of §6.3.3 (distribution points
 * and the issuing distribution point's scope, reasons collected until they cover all, indirect
 * CRLs and their certificate issuer entries, a delta CRL over its base, the CRL issuer's own
 * certification path to the same trust anchor with cRLSign), OCSP responses by RFC 6960 §3.2.
 * A CRL or response MUST NOT be used past its nextUpdate (§6.3.3 (a), RFC 6960 §3.2 (6)); one
 * issued after the time judged still proves the status at that time. Pure: the time comes in.
 */
import type { RevocationPolicy } from '../domain/pades';
import { bytesEqual, children, seq, toHex, readDerExact, type Der } from '../der/der';
import { ALL_REASONS, type DistributionPoint, type DistributionPointName } from '../der/crl-fields';
import { GENERAL_NAME, KEY_USAGE } from '../der/x509-constraints';
import { findEntry, type Crl, type CrlEntry } from './crl';
import { nameKey, rdnsOf } from './name-match';
import { checkOcspResponse, type OcspResponse } from './ocsp';
import type { PathCertificate } from './path-certificate';

/** Where a CRL or OCSP response was found: the document's /DSS (and /VRI), the signature's CMS, or fetched (`verify --online`). */
export type FoundIn = 'dss' | 'signature' | 'online';

export interface RevocationData {
  crls: { crl: Crl; foundIn: FoundIn }[];
  ocsps: { response: OcspResponse; foundIn: FoundIn }[];
  /** Data found that does not read, named where a status stays undetermined. */
  unreadable?: string[];
}

export interface RevocationOptions {
  data: RevocationData;
  /** `require`: a certificate whose status cannot be determined fails the path; `if-available`: only a revoked one does. */
  policy: RevocationPolicy;
}

export interface RevocationEntry {
  certificate: string;
  /** `no_data`: no usable CRL or OCSP response determines it (`problems` says what was found and why it is unusable). */
  status: 'good' | 'revoked' | 'unknown' | 'no_data';
  source: 'ocsp' | 'crl' | null;
  foundIn: FoundIn | null;
  revokedAt: string | null;
  /** The CRLReason (RFC 5280 §5.3.1) of a revocation, when given. */
  reason: string | null;
  /** thisUpdate of the answer used. */
  checkedAt: string | null;
  problems: string[];
}

/** What the check of one certificate needs from the path around it (chain.ts). */
export interface StatusContext {
  at: Date;
  data: RevocationData;
  /** Certificates named `issuerKey` that may have signed a CRL, the path's own first. */
  signersNamed(issuerKey: string): PathCertificate[];
  /** Why `signer` cannot sign CRLs for this path (§6.3.3 (f): its own path to the same anchor); empty when it can. */
  signerFailures(signer: PathCertificate): string[];
  /** A CertificateList's signature checked with `signer`'s key (remembered by the caller). */
  verifies(signed: Der[], signer: PathCertificate): boolean;
}

const FOUND_RANK: Record<FoundIn, number> = { dss: 0, signature: 1, online: 2 };

/** A distribution point as keys: its names (null when it has none), reasons, and CRL issuer names. */
interface Point {
  names: string[] | null;
  reasons: number | null;
  crlIssuer: string[] | null;
  /** Named in failures. */
  label: string;
}

function generalNameKey(n: Der): string {
  return n.tag === GENERAL_NAME.directoryName ? `dn:${nameKey(children(n)[0]!)}` : `gn:${toHex(n.raw)}`;
}

/** §4.2.1.13, §5.2.5: a full name as given, a relative name appended to the CRL issuer's name. */
function namesOf(name: DistributionPointName, base: Der): string[] {
  if ('fullName' in name) return name.fullName.map(generalNameKey);
  return [`dn:${nameKey(readDerExact(seq(...rdnsOf(base).map((r) => r.raw), name.relative.raw)))}`];
}

function pointsOf(cert: PathCertificate): Point[] {
  const own = (cert.distributionPoints ?? []).map((dp: DistributionPoint, i): Point => {
    const issuerName = dp.crlIssuer?.find((n) => n.tag === GENERAL_NAME.directoryName);
    const base = issuerName ? children(issuerName)[0]! : cert.fields.issuer;
    return { names: dp.name ? namesOf(dp.name, base) : null, reasons: dp.reasons, crlIssuer: dp.crlIssuer?.map(generalNameKey) ?? null, label: `distribution point ${i + 1}` };
  });
  // §6.3.3, last paragraph: then CRLs of the certificate issuer not named in a distribution point,
  // as one whose name is the issuer's and whose reasons and cRLIssuer are absent.
  return [...own, { names: [`dn:${cert.issuerKey}`], reasons: null, crlIssuer: null, label: "the issuer's own CRLs" }];
}

/** §6.3.3 (b): why `crl` is not one for `cert` through `point`, or null when it is. */
function outOfScope(cert: PathCertificate, point: Point, crl: Crl): string | null {
  if (point.crlIssuer) {
    if (!point.crlIssuer.includes(`dn:${crl.issuerKey}`)) return 'issued by another CRL issuer than its distribution point names';
    if (!crl.idp?.indirect) return 'not an indirect CRL, as its distribution point cRLIssuer requires';
  } else if (crl.issuerKey !== cert.issuerKey) return 'issued by another CA';
  const idp = crl.idp;
  if (!idp) return null;
  if (idp.name) {
    const scope = namesOf(idp.name, crl.issuer);
    const mine = point.names ?? point.crlIssuer ?? [];
    if (!scope.some((k) => mine.includes(k))) return 'its issuing distribution point is not the certificate\'s';
  }
  const isCa = cert.basicConstraints?.ca === true;
  if (idp.onlyUserCerts && isCa) return 'it covers end-entity certificates only';
  if (idp.onlyCaCerts && !isCa) return 'it covers CA certificates only';
  if (idp.onlyAttributeCerts) return 'it covers attribute certificates only';
  return null;
}

interface Signed {
  signer: PathCertificate | null;
  problem: string | null;
}

/** §6.3.3 (f), (g): a certificate of the CRL's issuer whose key verifies it, with cRLSign, itself valid for this path. */
function signerOf(crl: Crl, ctx: StatusContext, memo: Map<Crl, Signed>): Signed {
  const known = memo.get(crl);
  if (known) return known;
  const reasons: string[] = [];
  let found: Signed = { signer: null, problem: null };
  for (const candidate of ctx.signersNamed(crl.issuerKey)) {
    if (!ctx.verifies(crl.signed, candidate)) continue;
    if (candidate.keyUsage && !candidate.keyUsage.has(KEY_USAGE.cRLSign)) {
      reasons.push(`its signer ${candidate.name} has a keyUsage without cRLSign`);
      continue;
    }
    const failures = ctx.signerFailures(candidate);
    if (failures.length === 0) {
      found = { signer: candidate, problem: null };
      break;
    }
    reasons.push(`its signer ${candidate.name} is not valid: ${failures.join('; ')}`);
  }
  if (!found.signer) found = { signer: null, problem: reasons.join('; ') || 'its signature does not verify with the key of any certificate of its issuer' };
  memo.set(crl, found);
  return found;
}

/** §5.2.4, §6.3.3 (c), (h): the newest current delta CRL that updates `base`, signed by `signer`. */
function deltaFor(base: Crl, signer: PathCertificate, ctx: StatusContext): Crl | null {
  if (base.crlNumber === null) return null;
  let best: Crl | null = null;
  for (const { crl: d } of ctx.data.crls) {
    if (d.deltaBase === null || d.issuerKey !== base.issuerKey || d.unusable.length > 0 || d.deltaBase > base.crlNumber) continue;
    if (d.crlNumber !== null && d.crlNumber <= base.crlNumber) continue;
    if ((d.idpRaw === null) !== (base.idpRaw === null) || (d.idpRaw && base.idpRaw && !bytesEqual(d.idpRaw, base.idpRaw))) continue;
    if (d.authorityKeyId && base.authorityKeyId && !bytesEqual(d.authorityKeyId, base.authorityKeyId)) continue;
    if (d.nextUpdate && d.nextUpdate < ctx.at) continue;
    if (!ctx.verifies(d.signed, signer)) continue;
    if (!best || (d.crlNumber ?? 0n) > (best.crlNumber ?? 0n)) best = d;
  }
  return best;
}

interface Verdict {
  status: 'good' | 'revoked' | 'unknown';
  source: 'crl' | 'ocsp';
  foundIn: FoundIn;
  entry: CrlEntry | null;
  revokedAt: Date | null;
  thisUpdate: Date;
}

/** §6.3.3 over every distribution point; a revocation, all reasons covered, or null. */
function crlVerdict(cert: PathCertificate, ctx: StatusContext, memo: Map<Crl, Signed>, problems: string[]): Verdict | null {
  let mask = 0;
  let usedIn: { foundIn: FoundIn; thisUpdate: Date } | null = null;
  const complete = ctx.data.crls.filter((c) => c.crl.deltaBase === null).sort((a, b) => FOUND_RANK[a.foundIn] - FOUND_RANK[b.foundIn]);
  for (const point of pointsOf(cert)) {
    for (const { crl, foundIn } of complete) {
      if (mask === ALL_REASONS) break;
      const about = crl.issuerKey === cert.issuerKey || (point.crlIssuer?.includes(`dn:${crl.issuerKey}`) ?? false);
      const note = (why: string) => about && problems.push(`a CRL of ${foundIn} (thisUpdate ${crl.thisUpdate.toISOString()}) is not used: ${why}`);
      const scope = outOfScope(cert, point, crl);
      if (scope) {
        note(`${scope} (${point.label})`);
        continue;
      }
      // (d), (e): the reasons it covers for this point, of which some must be new.
      const interim = (crl.idp?.onlySomeReasons ?? ALL_REASONS) & (point.reasons ?? ALL_REASONS) & ALL_REASONS;
      if ((interim & ~mask) === 0) continue;
      if (crl.unusable.length > 0) {
        note(crl.unusable.join('; '));
        continue;
      }
      const { signer, problem } = signerOf(crl, ctx, memo);
      if (!signer) {
        note(problem!);
        continue;
      }
      // (a)(1): past its nextUpdate, a complete CRL counts only with a current delta over it.
      const delta = deltaFor(crl, signer, ctx);
      if (crl.nextUpdate && crl.nextUpdate < ctx.at && !delta) {
        note(`it expired on ${crl.nextUpdate.toISOString()}, before the time judged (${ctx.at.toISOString()}), and no current delta CRL updates it`);
        continue;
      }
      // (i)-(k): the delta first; removeFromCRL there takes it off the complete CRL.
      const entry = (delta && findEntry(delta, cert.fields.serial.content, cert.issuerKey)) ?? findEntry(crl, cert.fields.serial.content, cert.issuerKey);
      if (entry && entry.reason !== 'removeFromCRL') return { status: 'revoked', source: 'crl', foundIn, entry, revokedAt: entry.revokedAt, thisUpdate: (delta ?? crl).thisUpdate };
      mask |= interim; // (l)
      if (!usedIn || FOUND_RANK[foundIn] > FOUND_RANK[usedIn.foundIn]) usedIn = { foundIn, thisUpdate: (delta ?? crl).thisUpdate };
    }
  }
  if (mask === ALL_REASONS && usedIn) return { status: 'good', source: 'crl', foundIn: usedIn.foundIn, entry: null, revokedAt: null, thisUpdate: usedIn.thisUpdate };
  if (mask !== 0) problems.push('the CRLs found do not cover every revocation reason (RFC 5280 §6.3.3)');
  return null;
}

/** RFC 6960 §3.2: a response about this certificate from its issuer or the issuer's responder, current at the time judged. */
function ocspVerdicts(cert: PathCertificate, issuer: PathCertificate, ctx: StatusContext, problems: string[]): Verdict[] {
  const out: Verdict[] = [];
  for (const { response, foundIn } of ctx.data.ocsps) {
    let v;
    try {
      v = checkOcspResponse(response, cert.der, issuer.der);
    } catch (e) {
      const message = (e as Error).message;
      if (!message.includes('no matching CertID')) problems.push(`an OCSP response of ${foundIn} is not used: ${message}`);
      continue;
    }
    if (v.nextUpdate && v.nextUpdate < ctx.at) {
      problems.push(`an OCSP response of ${foundIn} is not used: it expired on ${v.nextUpdate.toISOString()}, before the time judged (${ctx.at.toISOString()})`);
      continue;
    }
    out.push({ status: v.status, source: 'ocsp', foundIn, entry: null, revokedAt: v.revokedAt, thisUpdate: v.thisUpdate });
  }
  return out;
}

/**
 * The status of `cert` (issued by `issuer` in the path) at `ctx.at`. A revocation anywhere wins;
 * then a good answer, the document's own before the signature's and the fetched; a revocation
 * dated after the time judged is no revocation at that time, and is named.
 */
export function certificateStatus(cert: PathCertificate, issuer: PathCertificate, ctx: StatusContext, memo: Map<Crl, Signed> = new Map()): RevocationEntry {
  const problems: string[] = [];
  const entry: RevocationEntry = { certificate: cert.name, status: 'no_data', source: null, foundIn: null, revokedAt: null, reason: null, checkedAt: null, problems };
  const verdicts = ocspVerdicts(cert, issuer, ctx, problems);
  const fromCrl = crlVerdict(cert, ctx, memo, problems);
  if (fromCrl) verdicts.push(fromCrl);
  const revoked = verdicts.filter((v) => v.status === 'revoked').sort((a, b) => (a.revokedAt?.getTime() ?? 0) - (b.revokedAt?.getTime() ?? 0))[0];
  const good = verdicts.filter((v) => v.status === 'good').sort((a, b) => FOUND_RANK[a.foundIn] - FOUND_RANK[b.foundIn])[0];
  const chosen = revoked ?? good ?? verdicts.find((v) => v.status === 'unknown');
  if (!chosen) {
    entry.problems = [...new Set([...problems, ...(ctx.data.unreadable ?? [])])];
    return entry;
  }
  const later = chosen.status === 'revoked' && chosen.revokedAt !== null && chosen.revokedAt > ctx.at;
  Object.assign(entry, {
    status: later ? 'good' : chosen.status,
    source: chosen.source,
    foundIn: chosen.foundIn,
    revokedAt: chosen.revokedAt?.toISOString() ?? null,
    reason: chosen.entry?.reason ?? null,
    checkedAt: chosen.thisUpdate.toISOString(),
    problems: later ? [`revoked on ${chosen.revokedAt!.toISOString()}, after the time it is judged at (${ctx.at.toISOString()})`] : chosen.status === 'unknown' ? problems : [],
  });
  return entry;
}

/** The failure a status is for its path under `policy`, or null. */
export function revocationFailure(e: RevocationEntry, policy: RevocationPolicy): string | null {
  if (e.status === 'revoked') return `${e.certificate} is revoked since ${e.revokedAt ?? 'an unknown date'}${e.reason ? ` (${e.reason})` : ''}`;
  if (e.status === 'good' || policy !== 'require') return null;
  const why = e.status === 'unknown' ? 'its OCSP responder does not know it' : e.problems.length > 0 ? e.problems.join('; ') : 'no CRL or OCSP response about it was found';
  return `the revocation status of ${e.certificate} cannot be determined (revocation: require): ${why}`;
}
