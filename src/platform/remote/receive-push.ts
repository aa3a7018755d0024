import { InvalidInputError, LocalsignError } from '../../domain/errors';
import { verifyPush } from './push-hmac';
import { parseResult } from './wire';
import type { Pairing } from '../../store/catalog-types';
import type { RequestEntry } from '../../store/request-store';
import type { PlatformResultHub } from './results';

export interface PushDeps {
  pairing: () => Pairing | null;
  request: (id: string) => RequestEntry | undefined;
  /**
   * For a request whose digest the platform signs (its credential's engine is a remote one): the
   * shape of the platform's answer its kind gives (signer.ts DigestLabel `answer`); null for any other.
   */
  platformAnswer: (entry: RequestEntry) => 'signature' | 'recoverable' | null;
  hub: PlatformResultHub;
  nowSeconds: () => number;
}

/**
 * POST /receive (PLATFORM.md "Push"): the HMAC with the agent secret authenticates the platform
 * (wrapper credentials never open it), a timestamp more than 300 s away is refused, an unknown
 * request is 404, a repeated delivery is a 200 that changes nothing (first one wins), and nothing
 * can touch a request that is already DONE or ERROR. The signature itself is trusted no more than
 * a polled one: the job checks it against the credential before DONE.
 */
export function receivePush(deps: PushDeps, raw: Buffer, headers: { timestamp?: string; signature?: string }): { duplicate: boolean } {
  const pairing = deps.pairing();
  const ok = verifyPush({
    agentSecret: pairing?.platform === 'remote' ? pairing.agent_secret : null,
    timestamp: headers.timestamp,
    signature: headers.signature,
    rawBody: raw,
    nowSeconds: deps.nowSeconds(),
  });
  if (!ok) throw new LocalsignError('unauthorized', 'missing or invalid platform signature', { type: 'push_auth' });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new InvalidInputError('push body must be valid JSON');
  }
  const id = typeof (body as { request_id?: unknown } | null)?.request_id === 'string' ? (body as { request_id: string }).request_id : '';
  const entry = deps.request(id);
  const answer = entry ? deps.platformAnswer(entry) : null;
  if (!entry || !answer) {
    throw new LocalsignError('not_found', `no request ${id.slice(0, 64)} is waiting for the platform`, { type: 'not_found' });
  }
  if (entry.status !== 'PENDING') return { duplicate: true };
  let result;
  try {
    result = parseResult(body, answer);
  } catch (cause) {
    throw new InvalidInputError(`push for ${id}: ${(cause as Error).message}`, { cause });
  }
  if (result.status === 'PENDING') throw new InvalidInputError(`push for ${id} has status PENDING; only DONE or ERROR are delivered`);
  return { duplicate: deps.hub.deliver(id, result) === 'duplicate' };
}
