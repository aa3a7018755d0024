import { SigningError } from '../domain/errors';
import type { RequestEntry } from '../store/request-store';
import type { JobRun } from './job-types';

/**
 * The PIN a request brought for its chip signature (`chip_pin`), held in memory since
 * accept. A request the journal marks as having brought one but that has none now was accepted
 * before a restart: the PIN was never written anywhere, so the request ends ERROR rather than
 * trying the chip without it.
 */
export function chipPinOf(entry: RequestEntry, run: JobRun): Uint8Array | undefined {
  const pin = run.accepted?.chipPin;
  if (entry.params.pinFromRequest && !pin) {
    throw new SigningError('the PIN is not kept across a restart (chip_pin is held in memory only); send the request again with chip_pin');
  }
  return pin;
}
