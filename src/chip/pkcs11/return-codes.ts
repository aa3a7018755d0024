/**
 * CK_RV values (PKCS#11 v2.40 pkcs11t.h) and what each means for the service: a name for
 * messages, and whether the session or the token is gone (so the next call reconnects).
 */
import { ChipError } from '../../domain/errors';
import type { PinRejection } from '../pin-rejection';

export const CKR_OK = 0x0;
export const CKR_BUFFER_TOO_SMALL = 0x150;
export const CKR_CRYPTOKI_ALREADY_INITIALIZED = 0x191;
export const CKR_USER_ALREADY_LOGGED_IN = 0x100;

const NAMES: Record<number, string> = {
  0x0: 'CKR_OK',
  0x1: 'CKR_CANCEL',
  0x2: 'CKR_HOST_MEMORY',
  0x3: 'CKR_SLOT_ID_INVALID',
  0x5: 'CKR_GENERAL_ERROR',
  0x6: 'CKR_FUNCTION_FAILED',
  0x7: 'CKR_ARGUMENTS_BAD',
  0x9: 'CKR_NEED_TO_CREATE_THREADS',
  0xa: 'CKR_CANT_LOCK',
  0x11: 'CKR_ATTRIBUTE_SENSITIVE',
  0x12: 'CKR_ATTRIBUTE_TYPE_INVALID',
  0x13: 'CKR_ATTRIBUTE_VALUE_INVALID',
  0x1b: 'CKR_ACTION_PROHIBITED',
  0x20: 'CKR_DATA_INVALID',
  0x21: 'CKR_DATA_LEN_RANGE',
  0x30: 'CKR_DEVICE_ERROR',
  0x31: 'CKR_DEVICE_MEMORY',
  0x32: 'CKR_DEVICE_REMOVED',
  0x50: 'CKR_FUNCTION_CANCELED',
  0x54: 'CKR_FUNCTION_NOT_SUPPORTED',
  0x60: 'CKR_KEY_HANDLE_INVALID',
  0x62: 'CKR_KEY_SIZE_RANGE',
  0x63: 'CKR_KEY_TYPE_INCONSISTENT',
  0x68: 'CKR_KEY_FUNCTION_NOT_PERMITTED',
  0x70: 'CKR_MECHANISM_INVALID',
  0x71: 'CKR_MECHANISM_PARAM_INVALID',
  0x82: 'CKR_OBJECT_HANDLE_INVALID',
  0x90: 'CKR_OPERATION_ACTIVE',
  0x91: 'CKR_OPERATION_NOT_INITIALIZED',
  0xa0: 'CKR_PIN_INCORRECT',
  0xa1: 'CKR_PIN_INVALID',
  0xa2: 'CKR_PIN_LEN_RANGE',
  0xa3: 'CKR_PIN_EXPIRED',
  0xa4: 'CKR_PIN_LOCKED',
  0xb0: 'CKR_SESSION_CLOSED',
  0xb1: 'CKR_SESSION_COUNT',
  0xb3: 'CKR_SESSION_HANDLE_INVALID',
  0xb4: 'CKR_SESSION_PARALLEL_NOT_SUPPORTED',
  0xb5: 'CKR_SESSION_READ_ONLY',
  0xb6: 'CKR_SESSION_EXISTS',
  0xd0: 'CKR_TEMPLATE_INCOMPLETE',
  0xd1: 'CKR_TEMPLATE_INCONSISTENT',
  0xe0: 'CKR_TOKEN_NOT_PRESENT',
  0xe1: 'CKR_TOKEN_NOT_RECOGNIZED',
  0x100: 'CKR_USER_ALREADY_LOGGED_IN',
  0x101: 'CKR_USER_NOT_LOGGED_IN',
  0x102: 'CKR_USER_PIN_NOT_INITIALIZED',
  0x103: 'CKR_USER_TYPE_INVALID',
  0x104: 'CKR_USER_ANOTHER_ALREADY_LOGGED_IN',
  0x150: 'CKR_BUFFER_TOO_SMALL',
  0x190: 'CKR_CRYPTOKI_NOT_INITIALIZED',
  0x191: 'CKR_CRYPTOKI_ALREADY_INITIALIZED',
  0x200: 'CKR_FUNCTION_REJECTED',
};

/** What the operator should read for the codes that have a clear cause. */
const PROBLEMS: Record<number, string> = {
  0xa0: 'PIN incorrect',
  0xa1: 'PIN invalid (characters the token does not accept)',
  0xa2: 'PIN length out of range',
  0xa3: 'PIN expired; change it with the vendor tool',
  0xa4: 'PIN locked; unlock it with the SO PIN or the vendor tool',
  0x102: 'user PIN not initialised on the token',
  0xe0: 'token not present (removed?)',
  0x32: 'token removed',
  0xe1: 'token not recognised',
  0x30: 'device error',
  0xb0: 'session closed by the device',
  0xb3: 'session no longer valid',
  0x190: 'PKCS#11 module not initialised',
  0x68: 'key not permitted to sign',
  0x60: 'key handle invalid',
  0x21: 'data length out of range for this key',
};

/**
 * Codes after which the session (or the whole token) is gone: drop the session, and reconnect
 * (find the token by label again, new session, login) on this or the next call.
 */
const SESSION_LOST = new Set([0xb0, 0xb3, 0x30, 0x32, 0xe0, 0x190, 0x101, 0x82, 0x60]);

/**
 * Codes by which the token refuses the user PIN itself (v2.40 §5.6 C_Login). A token counts wrong
 * tries and locks the PIN after a few (smart cards 3, HSMs up to 10), so after one of these the
 * same PIN must not be presented again until the operator acts (see chip/provider.ts).
 */
const PIN_REJECTED = new Set([0xa0, 0xa1, 0xa2, 0xa3, 0xa4]);

export function ckrName(rv: number): string {
  if (NAMES[rv]) return NAMES[rv];
  if (rv >= 0x8000_0000) return `CKR_VENDOR_DEFINED+0x${(rv - 0x8000_0000).toString(16)}`;
  return `CKR_0x${rv.toString(16)}`;
}

/** A failed PKCS#11 call. A ChipError, so the API maps it to 502 like every chip failure. */
export class Pkcs11CallError extends ChipError implements PinRejection {
  readonly rv: number;
  readonly functionName: string;
  readonly pinRejected: boolean;
  readonly code: string;
  constructor(functionName: string, rv: number, tokenLabel: string | undefined) {
    const problem = PROBLEMS[rv] ?? `${functionName} failed`;
    const where = tokenLabel === undefined ? '' : ` on token '${tokenLabel}'`;
    super(`${problem}${where} (${functionName}: ${ckrName(rv)})`);
    this.rv = rv;
    this.functionName = functionName;
    this.pinRejected = PIN_REJECTED.has(rv);
    this.code = ckrName(rv);
  }
}

/** True when the error means the session or token went away and a reconnect may help. */
export function isSessionLost(error: unknown): boolean {
  return error instanceof Pkcs11CallError && SESSION_LOST.has(error.rv);
}

/** Throws Pkcs11CallError unless rv is CKR_OK (or one of `accept`). */
export function check(functionName: string, rv: number, tokenLabel?: string, accept: number[] = []): void {
  if (rv === CKR_OK || accept.includes(rv)) return;
  throw new Pkcs11CallError(functionName, rv, tokenLabel);
}
