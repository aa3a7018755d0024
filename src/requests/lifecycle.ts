import type { RequestStatus } from '../store/request-store';

/**
 * spec §3: (none) -> PENDING -> DONE | ERROR. DONE and ERROR are final: a late push, a duplicate
 * delivery or a timeout firing after completion changes nothing ("first one wins", PLATFORM.md).
 */
export function canTransition(from: RequestStatus, to: RequestStatus): boolean {
  return from === 'PENDING' && (to === 'DONE' || to === 'ERROR');
}

/**
 * Starts of work after which a crash ends a request instead of resuming it: the
 * run that a crash cut short gets one more try at the next start, and if that one is cut short
 * too, the request, not the service, gives way. Otherwise a request that takes the process down
 * (an abort no handler can catch) is resumed, and takes it down, at every start.
 */
export const MAX_ATTEMPTS = 2;

export function mayResume(attempts: number): boolean {
  return attempts < MAX_ATTEMPTS;
}
