import { describe, expect, it } from 'vitest';
import { ChipError } from '../../../src/domain/errors';
import { isPinRejection } from '../../../src/chip/pin-rejection';
import { Pkcs11CallError, check, ckrName, isSessionLost } from '../../../src/chip/pkcs11/return-codes';

describe('CK_RV table', () => {
  it('names codes from pkcs11t.h, vendor codes and unknown ones', () => {
    expect(ckrName(0xa0)).toBe('CKR_PIN_INCORRECT');
    expect(ckrName(0xa4)).toBe('CKR_PIN_LOCKED');
    expect(ckrName(0xe0)).toBe('CKR_TOKEN_NOT_PRESENT');
    expect(ckrName(0x32)).toBe('CKR_DEVICE_REMOVED');
    expect(ckrName(0xb3)).toBe('CKR_SESSION_HANDLE_INVALID');
    expect(ckrName(0x8000_0012)).toBe('CKR_VENDOR_DEFINED+0x12');
    expect(ckrName(0x4242)).toBe('CKR_0x4242');
  });

  it('words PIN and token problems for the operator', () => {
    const cases: [number, string][] = [
      [0xa0, "PIN incorrect on token 'T' (C_Login: CKR_PIN_INCORRECT)"],
      [0xa4, "PIN locked; unlock it with the SO PIN or the vendor tool on token 'T' (C_Login: CKR_PIN_LOCKED)"],
      [0xe0, "token not present (removed?) on token 'T' (C_Login: CKR_TOKEN_NOT_PRESENT)"],
      [0x32, "token removed on token 'T' (C_Login: CKR_DEVICE_REMOVED)"],
      [0x5, "C_Login failed on token 'T' (C_Login: CKR_GENERAL_ERROR)"],
    ];
    for (const [rv, message] of cases) {
      const error = new Pkcs11CallError('C_Login', rv, 'T');
      expect(error.message).toBe(message);
      expect(error).toBeInstanceOf(ChipError);
      expect(error.kind).toBe('upstream');
      expect(error.type).toBe('chip');
      expect(error.rv).toBe(rv);
    }
    expect(new Pkcs11CallError('C_Initialize', 0x5, undefined).message).toBe('C_Initialize failed (C_Initialize: CKR_GENERAL_ERROR)');
  });

  it('marks the codes after which the session is gone and a reconnect may help', () => {
    for (const rv of [0xb0, 0xb3, 0x30, 0x32, 0xe0, 0x190, 0x101, 0x82, 0x60]) {
      expect(isSessionLost(new Pkcs11CallError('C_Sign', rv, 'T'))).toBe(true);
    }
    // Never retried: a second C_Login with a wrong PIN would burn another try of the token.
    for (const rv of [0xa0, 0xa4, 0x5, 0x68, 0x21]) {
      expect(isSessionLost(new Pkcs11CallError('C_Sign', rv, 'T'))).toBe(false);
    }
    expect(isSessionLost(new ChipError('other'))).toBe(false);
  });

  it('marks the codes by which the token refuses the PIN (issue 7.4: never presented again)', () => {
    for (const rv of [0xa0, 0xa1, 0xa2, 0xa3, 0xa4]) {
      const error = new Pkcs11CallError('C_Login', rv, 'T');
      expect(isPinRejection(error)).toBe(true);
      expect(error.code).toBe(ckrName(rv));
    }
    // Faults a reconnect or a retry may cure, and a PIN source that could not be read, are not.
    for (const rv of [0x5, 0x30, 0x32, 0xe0, 0xb3, 0x102, 0x100]) {
      expect(isPinRejection(new Pkcs11CallError('C_Login', rv, 'T'))).toBe(false);
    }
    expect(isPinRejection(new ChipError('the chip PIN variable X is not set'))).toBe(false);
    expect(isPinRejection(Object.assign(new Error('x'), { pinRejected: true }))).toBe(false);
  });

  it('check passes CKR_OK and accepted codes, throws the rest', () => {
    expect(() => check('C_Login', 0)).not.toThrow();
    expect(() => check('C_Login', 0x100, 'T', [0x100])).not.toThrow();
    expect(() => check('C_Login', 0xa0, 'T')).toThrow(new Pkcs11CallError('C_Login', 0xa0, 'T'));
    expect(() => check('C_Login', 0xa0, 'T')).toThrow(/^PIN incorrect on token 'T' \(C_Login: CKR_PIN_INCORRECT\)$/u);
  });
});
