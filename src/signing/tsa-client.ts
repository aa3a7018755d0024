/**
 * RFC 3161 §3.4 time-stamp protocol over HTTP: POST a TimeStampReq as application/timestamp-query,
 * read a TimeStampResp as application/timestamp-reply. The only I/O of B-T signing (ETSI EN 319 142-1 §6.3).
 */
import { createHash, randomBytes } from 'node:crypto';
import { PlatformError } from '../errors/errors';
import { buildTimestampRequest, parseTimestampResponse } from '../pades/timestamp';

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REPLY_BYTES = 1024 * 1024;

export async function fetchTimestampToken(
  url: string,
  signatureValue: Uint8Array,
  options?: { timeoutMs?: number; fetch?: typeof fetch },
): Promise<Uint8Array> {
  const doFetch = options?.fetch ?? fetch;
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // 63-bit random nonce (RFC 3161 §2.4.1: binds reply to request); positive so the INTEGER stays short.
  const nonce = randomBytes(8).readBigUInt64BE() >> 1n;
  const query = buildTimestampRequest(signatureValue, nonce);
  const host = safeHost(url);
  let body: Uint8Array;
  try {
    const res = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: query,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new PlatformError(`timestamp authority ${host} answered HTTP ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/timestamp-reply') {
      throw new PlatformError(`timestamp authority ${host} answered ${type || 'no content type'}, expected application/timestamp-reply`);
    }
    body = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    const name = (e as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new PlatformError(`timestamp authority ${host} did not answer within ${timeoutMs} ms`, { cause: e });
    }
    throw new PlatformError(`timestamp authority ${host} is unreachable: ${(e as Error).message}`, { cause: e });
  }
  if (body.length > MAX_REPLY_BYTES) throw new PlatformError(`timestamp authority ${host} sent ${body.length} bytes, too large for a reply`);
  const imprint = new Uint8Array(createHash('sha256').update(signatureValue).digest());
  return parseTimestampResponse(body, { imprint, nonce });
}

/** The host only: a TSA URL may carry credentials in its userinfo or query, never echo those. */
function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new PlatformError('timestamp authority URL is not a valid URL');
  }
}
