/**
 * RFC 3161 §3.4 time-stamp protocol over HTTP: POST a TimeStampReq as application/timestamp-query,
 * read a TimeStampResp as application/timestamp-reply. The only I/O of B-T signing (ETSI EN 319 142-1 §6.3).
 * It goes through the service's HTTP client, so the operator's proxy settings apply to it too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PlatformError } from '../../domain/errors';
import { causeOf, type HttpClient } from '../../net/http-client';
import { TransportError } from '../../net/transport-error';
import { buildTimestampRequestForImprint, parseTimestampResponse } from '../../pades/cms';

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REPLY_BYTES = 1024 * 1024;

export async function fetchTimestampToken(
  http: Pick<HttpClient, 'request'>,
  url: string,
  signatureValue: Uint8Array,
  options?: { timeoutMs?: number; signal?: AbortSignal },
): Promise<Uint8Array> {
  return fetchTimestampTokenForImprint(http, url, new Uint8Array(createHash('sha256').update(signatureValue).digest()), options);
}

/** A token over a SHA-256 imprint: the signature value's (B-T) or a document's ByteRange digest (B-LTA). */
export async function fetchTimestampTokenForImprint(
  http: Pick<HttpClient, 'request'>,
  url: string,
  imprint: Uint8Array,
  options?: { timeoutMs?: number; signal?: AbortSignal },
): Promise<Uint8Array> {
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // 63-bit random nonce (RFC 3161 §2.4.1: binds reply to request); positive so the INTEGER stays short.
  const nonce = randomBytes(8).readBigUInt64BE() >> 1n;
  const query = buildTimestampRequestForImprint(imprint, nonce);
  const host = safeHost(url);
  let answer;
  try {
    answer = await http.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: query,
      timeoutMs,
      signal: options?.signal,
      maxBytes: MAX_REPLY_BYTES,
    });
  } catch (e) {
    if (!(e instanceof TransportError)) throw e;
    if (e.aborted) throw e;
    const timedOut = e.timedOut;
    // The cause in the short message ("connect ECONNREFUSED 127.0.0.1:9"): "fetch failed" told nothing.
    throw new PlatformError(timedOut ? `timestamp authority ${host} did not answer within ${timeoutMs} ms` : `timestamp authority ${host} is unreachable: ${causeOf(e.cause ?? e)}`, { cause: e });
  }
  if (answer.status !== 200) throw new PlatformError(`timestamp authority ${host} answered HTTP ${answer.status}`);
  if (answer.contentType !== 'application/timestamp-reply') {
    throw new PlatformError(`timestamp authority ${host} answered ${answer.contentType || 'no content type'}, expected application/timestamp-reply`);
  }
  return parseTimestampResponse(new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.length), { imprint, nonce });
}

/** The host only: a TSA URL may carry credentials in its userinfo or query, never echo those. */
function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new PlatformError('timestamp authority URL is not a valid URL');
  }
}
