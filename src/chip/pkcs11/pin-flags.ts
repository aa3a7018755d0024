/**
 * The user PIN's state as the token reports it in CK_TOKEN_INFO.flags (PKCS#11 v2.40 §3.2,
 * table 8), read right before a login: no PIN is presented to a token that says the next wrong one
 * locks it, or that is locked. A wrong try there costs the card, and is not ours to spend: the
 * right PIN is then entered where a person sees what they type (the card's own software), or the
 * card is unblocked with its PUK or SO PIN. Tokens without a retry counter report none of these.
 */
import { ChipError } from '../../domain/errors';
import { CKF_USER_PIN_COUNT_LOW, CKF_USER_PIN_FINAL_TRY, CKF_USER_PIN_LOCKED } from './constants';

export interface PinState {
  /** A wrong PIN was entered since the last right one (CKF_USER_PIN_COUNT_LOW). */
  countLow: boolean;
  /** The next wrong PIN locks the card (CKF_USER_PIN_FINAL_TRY). */
  finalTry: boolean;
  /** The PIN is locked (CKF_USER_PIN_LOCKED). */
  locked: boolean;
}

/** Who presents the PIN: the operator's stored PIN, a request's `chip_pin`, or a person at the reader's PIN pad. */
export type PinPresenter = 'stored' | 'chip_pin' | 'pad';

export function pinStateOf(flags: bigint): PinState {
  return {
    countLow: (flags & CKF_USER_PIN_COUNT_LOW) !== 0n,
    finalTry: (flags & CKF_USER_PIN_FINAL_TRY) !== 0n,
    locked: (flags & CKF_USER_PIN_LOCKED) !== 0n,
  };
}

const UNBLOCK: Record<PinPresenter, string> = {
  stored: "unblock it with the SO PIN or the token vendor's tool; the next request then logs in",
  chip_pin: "the signatory unblocks the card with its PUK (the card vendor's tool), then sends the request again",
  pad: "the signatory unblocks the card with its PUK (the card vendor's tool), then signs again",
};

const RESET_COUNT: Record<Exclude<PinPresenter, 'pad'>, string> = {
  stored: "check the PIN in the file or variable given to `init`, and log in with it once with the token vendor's tool (a right PIN resets the count); the next request then logs in",
  chip_pin: "the signatory enters the right PIN once in the card's own software (a right PIN resets the count), then sends the request again",
};

/**
 * The error that stops a login before it is made, or null when it may be made. A person at a PIN
 * pad is not stopped at the final try: they type on the reader itself, as in the card's own
 * software, and no application sees or sends that PIN.
 */
export function loginRefusal(state: PinState, who: PinPresenter, tokenLabel: string): ChipError | null {
  if (state.locked) {
    return new ChipError(`the user PIN of token '${tokenLabel}' is locked (the token reports CKF_USER_PIN_LOCKED), so no PIN is presented to it: ${UNBLOCK[who]}`);
  }
  if (state.finalTry && who !== 'pad') {
    return new ChipError(`token '${tokenLabel}' says one more wrong PIN locks it (CKF_USER_PIN_FINAL_TRY), so no PIN is presented to it: ${RESET_COUNT[who]}`);
  }
  return null;
}

/** What the token's state after a refused `chip_pin` adds to the message (empty when it says nothing). */
export function afterRefusalNote(state: PinState | null): string {
  if (!state) return '';
  if (state.locked) return `; the card's PIN is now locked: ${UNBLOCK.chip_pin}`;
  if (state.finalTry) return '; the card now says one more wrong PIN locks it, so no chip_pin is presented to it until the signatory enters the right PIN once in its own software';
  if (state.countLow) return '; the card counts this wrong try (CKF_USER_PIN_COUNT_LOW)';
  return '';
}
