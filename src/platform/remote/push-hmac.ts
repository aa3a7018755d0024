import { createHmac, timingSafeEqual } from 'node:crypto';

/** PLATFORM.md: timestamps more than 300 s away are refused (replay window). */
export const PUSH_MAX_SKEW_SECONDS = 300;

/** `sha256=<hex HMAC-SHA256(agent_secret, timestamp + "." + raw body)>`, lowercase hex. */
export function signPush(agentSecret: string, timestamp: string, rawBody: Uint8Array): string {
  const mac = createHmac('sha256', Buffer.from(agentSecret, 'utf8'));
  mac.update(Buffer.from(`${timestamp}.`, 'utf8'));
  mac.update(rawBody);
  return `sha256=${mac.digest('hex')}`;
}

/**
 * Checks a push delivery (PLATFORM.md "Push"): the timestamp header's exact string is what was
 * signed; a missing or wrong signature or a timestamp outside the window fails. Constant-time.
 */
export function verifyPush(o: {
  agentSecret: string | null;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Uint8Array;
  nowSeconds: number;
}): boolean {
  if (!o.agentSecret || !o.timestamp || !o.signature) return false;
  if (!/^\d{1,12}$/.test(o.timestamp)) return false;
  if (Math.abs(o.nowSeconds - Number(o.timestamp)) > PUSH_MAX_SKEW_SECONDS) return false;
  const expected = Buffer.from(signPush(o.agentSecret, o.timestamp, o.rawBody), 'utf8');
  const given = Buffer.from(o.signature, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
