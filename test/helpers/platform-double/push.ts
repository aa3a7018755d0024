/**
 * Push delivery (PLATFORM.md "Push"): POST the result with `X-Platform-Timestamp` (unix seconds)
 * and `X-Platform-Signature: sha256=<hex HMAC-SHA256(agent_secret, timestamp + "." + raw body)>`.
 * Written here on its own (not imported from src/) so the double checks the service's code instead
 * of sharing its bugs. Modes: duplicate sends the same bytes twice, stale dates the delivery 400 s
 * back (outside the 300 s window), forged signs under a key that is not the agent's secret.
 */
import { createHmac } from 'node:crypto';
import { requestJson } from '../http-json';
import type { PushAttempt, PushMode, SignResult } from './types';

const PUSH_TIMEOUT_MS = 10_000;

export function pushSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

async function send(url: string, timestamp: string, signature: string, body: string, mode: PushMode): Promise<PushAttempt> {
  const attempt: PushAttempt = {
    request_id: JSON.parse(body).request_id as string, url, mode, timestamp, signature, body,
    status: null, response_body: null, error: null, at: new Date().toISOString(),
  };
  try {
    const res = await requestJson(url, {
      method: 'POST', body, timeoutMs: PUSH_TIMEOUT_MS,
      headers: { 'x-platform-timestamp': timestamp, 'x-platform-signature': signature },
    });
    attempt.status = res.status;
    attempt.response_body = res.text;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    attempt.error = e.code ?? e.message;
  }
  return attempt;
}

export async function deliverPush(o: { url: string; secret: string; result: SignResult; mode: PushMode }): Promise<PushAttempt[]> {
  const body = JSON.stringify(o.result);
  const now = Math.floor(Date.now() / 1000);
  const timestamp = String(o.mode === 'stale' ? now - 400 : now);
  const key = o.mode === 'forged' ? `${o.secret}-forged` : o.secret;
  const signature = pushSignature(key, timestamp, body);
  const first = await send(o.url, timestamp, signature, body, o.mode);
  if (o.mode !== 'duplicate') return [first];
  return [first, await send(o.url, timestamp, signature, body, o.mode)];
}
