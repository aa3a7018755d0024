import type { RequestStatus } from '../store/request-store';

/**
 * spec §3: (none) -> PENDING -> DONE | ERROR. DONE and ERROR are final: a late push, a duplicate
 * delivery or a timeout firing after completion changes nothing ("first one wins", PLATFORM.md).
 */
export function canTransition(from: RequestStatus, to: RequestStatus): boolean {
  return from === 'PENDING' && (to === 'DONE' || to === 'ERROR');
}
