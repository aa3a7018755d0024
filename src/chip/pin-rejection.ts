/**
 * The token refused the user PIN (wrong, malformed, expired or locked). Tokens count wrong tries
 * and lock the PIN after a few, so this is not a fault to retry like a lost session: whoever sees
 * it stops logging in until the operator acts. Pure (no native code), so `signing/` can test for
 * it without loading the PKCS#11 bridge.
 */
import { ChipError } from '../domain/errors';
import type { ChipSettings } from './types';

export interface PinRejection {
  /** True when the token refused the PIN itself (not: PIN source unreadable, token missing). */
  readonly pinRejected: boolean;
  /** The token's answer, e.g. `CKR_PIN_INCORRECT`; never the PIN. */
  readonly code: string;
}

export function isPinRejection(error: unknown): error is ChipError & PinRejection {
  return error instanceof ChipError && (error as Partial<PinRejection>).pinRejected === true;
}

/**
 * What the service says once it stops logging in: the token's answer, that no login follows, and
 * what the operator does about it, in the terms of the PIN source they chose at `init`
 * (pin-latch.ts: which acts lift the latch).
 */
export function pinRejectedError(cause: ChipError & PinRejection, settings: ChipSettings): ChipError {
  const source = settings.kind === 'pkcs11' ? settings : null;
  const fix = source?.pin_file
    ? `put the right PIN in the file ${source.pin_file} (the next use of the chip tries it once), or, if the token was made to accept the one there, run \`localsign chip:retry-pin\``
    : source?.pin_env
      ? `set the right PIN in the variable ${source.pin_env} and restart the service, then run \`localsign chip:retry-pin\` (alone, if the token was made to accept the one there)`
      : "unblock the card's PIN (its PUK or SO PIN, with the card vendor's tool), then run `localsign chip:retry-pin`";
  return new ChipError(`${cause.message}; no further login will be tried, so that wrong tries do not lock the token: ${fix}`, { cause });
}
