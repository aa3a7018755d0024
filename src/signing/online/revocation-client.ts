/**
 * Fetches what a PAdES B-LT DSS holds (ETSI EN 319 142-1 §5.4.2): for every certificate of the
 * signer's chain and of the timestamp's signer, an OCSP response (RFC 6960, POST
 * application/ocsp-request, Appendix A.1) from the responder its authorityInfoAccess names, else
 * the CRL (RFC 5280 §4.2.1.13) of its distribution point. Through the service's HTTP client, so
 * the operator's proxy applies, with a timeout per call. Anything missing, unusable or revoked is
 * a RevocationError naming the certificate and the URL: never a B-LT result without its data.
 */
import { randomBytes } from 'node:crypto';
import { RevocationError } from '../../domain/errors';
import type { HttpClient } from '../../net/http-client';
import { TransportError } from '../../net/transport-error';
import { parseSignedData } from '../../der/cms-fields';
import { caIssuerUrls, crlUrls, hasOcspNoCheck, ocspUrls } from '../../der/x509-extensions';
import { bytesEqual } from '../../der/der';
import { findIssuer, isSelfIssued, subjectOf } from '../../pki/chain';
import { checkCrl, parseCrl } from '../../pki/crl';
import { buildOcspRequest, checkOcspResponse, parseOcspResponse } from '../../pki/ocsp';
import type { ValidationData } from '../../pades/sign';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_CRL_BYTES = 16 * 1024 * 1024;

export interface RevocationSources {
  http: Pick<HttpClient, 'request'>;
  now: Date;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Data the service holds itself (the demo CA's CRL): answered in-process, no network. */
  local?: (url: string) => Uint8Array | null;
  /**
   * Fetches left for this document (`verify --online`): when set, certificates are asked about
   * one at a time and the fetches stop at zero, each refused one named as a failure.
   */
  budget?: { left: number };
  /**
   * Keep an answer that says revoked, and one past its nextUpdate, as data (`verify --online`: the
   * validator judges them at the time it judges, pki/revocation.ts); without it they are the
   * RevocationError that stops a B-LT signature.
   */
  keepRevoked?: boolean;
}

async function fetchBytes(src: RevocationSources, url: string, o: { body?: Uint8Array; maxBytes?: number }): Promise<Uint8Array> {
  const local = src.local?.(url);
  if (local && !o.body) return local;
  if (src.budget) {
    if (src.budget.left <= 0) throw new Error('not fetched: this document already used its online fetches');
    src.budget.left -= 1;
  }
  const timeoutMs = src.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let answer;
  try {
    answer = await src.http.request({
      method: o.body ? 'POST' : 'GET',
      url,
      headers: o.body ? { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' } : {},
      body: o.body,
      timeoutMs,
      signal: src.signal,
      maxBytes: o.maxBytes ?? 1024 * 1024,
    });
  } catch (e) {
    if (e instanceof TransportError && e.aborted) throw e;
    throw new Error((e as Error).message, { cause: e });
  }
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status}`);
  return new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.length);
}

interface Found {
  ocsps: Uint8Array[];
  crls: Uint8Array[];
  certs: Uint8Array[];
}

async function viaOcsp(src: RevocationSources, cert: Uint8Array, issuer: Uint8Array, url: string): Promise<Found> {
  const nonce = new Uint8Array(randomBytes(16));
  const der = await fetchBytes(src, url, { body: buildOcspRequest(cert, issuer, nonce) });
  const response = parseOcspResponse(der);
  const verdict = checkOcspResponse(response, cert, issuer, nonce);
  if (src.keepRevoked) return { ocsps: [der], crls: [], certs: bytesEqual(verdict.responder, issuer) ? [] : [verdict.responder] };
  if (verdict.status === 'revoked') throw new RevokedError(`is revoked since ${verdict.revokedAt!.toISOString()}`);
  if (verdict.status === 'unknown') throw new Error('the responder does not know the certificate (status unknown)');
  if (verdict.nextUpdate && verdict.nextUpdate < src.now) throw new Error(`the response expired at ${verdict.nextUpdate.toISOString()}`);
  const responderCerts = bytesEqual(verdict.responder, issuer) ? [] : [verdict.responder];
  return { ocsps: [der], crls: [], certs: responderCerts };
}

async function viaCrl(src: RevocationSources, cert: Uint8Array, issuer: Uint8Array, url: string): Promise<Found> {
  const der = await fetchBytes(src, url, { maxBytes: MAX_CRL_BYTES });
  const verdict = checkCrl(parseCrl(der), cert, issuer);
  if (src.keepRevoked) return { ocsps: [], crls: [der], certs: [] };
  if (verdict.status === 'revoked') throw new RevokedError(`is revoked since ${verdict.revokedAt!.toISOString()}`);
  if (verdict.nextUpdate && verdict.nextUpdate < src.now) throw new Error(`the CRL expired at ${verdict.nextUpdate.toISOString()}`);
  return { ocsps: [], crls: [der], certs: [] };
}

class RevokedError extends Error {}

/** OCSP first where a responder is named (smaller, fresher), then the CRL; the first that answers wins. */
async function revocationOf(src: RevocationSources, cert: Uint8Array, issuer: Uint8Array): Promise<Found> {
  const tries = [
    ...ocspUrls(cert).map((url) => ({ url, kind: 'OCSP', run: () => viaOcsp(src, cert, issuer, url) })),
    ...crlUrls(cert).map((url) => ({ url, kind: 'CRL', run: () => viaCrl(src, cert, issuer, url) })),
  ];
  const who = `certificate ${subjectOf(cert)}`;
  if (tries.length === 0) throw new RevocationError(`${who} names no OCSP responder and no CRL distribution point: its revocation data cannot be had for B-LT`);
  const failures: string[] = [];
  for (const t of tries) {
    try {
      return await t.run();
    } catch (e) {
      if (e instanceof TransportError && e.aborted) throw e;
      if (e instanceof RevokedError) throw new RevocationError(`${who} ${e.message} (${t.kind} ${t.url})`);
      failures.push(`${t.kind} ${t.url}: ${(e as Error).message}`);
    }
  }
  throw new RevocationError(`revocation data for ${who} cannot be had: ${failures.join('; ')}`);
}

async function issuerOf(src: RevocationSources, cert: Uint8Array, pool: Uint8Array[]): Promise<Uint8Array> {
  const known = findIssuer(cert, pool);
  if (known) return known;
  // RFC 5280 §4.2.2.1 id-ad-caIssuers: where the issuer's certificate is published (DER).
  for (const url of caIssuerUrls(cert)) {
    try {
      const der = await fetchBytes(src, url, {});
      if (findIssuer(cert, [der])) return der;
    } catch {
      // the next URL, or the error below
    }
  }
  throw new RevocationError(`the issuer of certificate ${subjectOf(cert)} is neither in the chain nor at its caIssuers URL: its revocation data cannot be checked`);
}

/** The certificates of a TimeStampToken (RFC 3161 §2.4.2: SignedData.certificates). */
export function tokenCertificates(token: Uint8Array): Uint8Array[] {
  return parseSignedData(token).certificates;
}

/**
 * Validation data for `chain` (signer first) and `extra` certificates (the TSA's): every
 * certificate, and the revocation data of each that is not self-issued or marked
 * id-pkix-ocsp-nocheck.
 */
export async function collectValidationData(chain: Uint8Array[], extra: Uint8Array[], src: RevocationSources): Promise<ValidationData> {
  const certs: Uint8Array[] = [];
  const add = (list: Uint8Array[], items: Uint8Array[]) => {
    for (const c of items) if (!list.some((k) => bytesEqual(k, c))) list.push(c);
  };
  add(certs, [...chain, ...extra]);
  const checked = certs.filter((c) => !isSelfIssued(c) && !hasOcspNoCheck(c));
  const one = async (cert: Uint8Array) => {
    const issuer = await issuerOf(src, cert, certs);
    return { issuer, data: await revocationOf(src, cert, issuer) };
  };
  // With a budget (a stranger's document names the URLs), one certificate at a time.
  const found = [];
  if (src.budget) for (const cert of checked) found.push(await one(cert));
  else found.push(...(await Promise.all(checked.map(one))));
  const ocsps: Uint8Array[] = [];
  const crls: Uint8Array[] = [];
  for (const f of found) {
    add(certs, [f.issuer, ...f.data.certs]);
    add(ocsps, f.data.ocsps);
    add(crls, f.data.crls);
  }
  return { certs, ocsps, crls };
}
