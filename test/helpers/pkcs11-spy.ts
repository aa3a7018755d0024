/**
 * OpenSC's pkcs11-spy: a PKCS#11 module that loads the real one named by PKCS11SPY, passes every
 * call through and logs it to PKCS11SPY_OUTPUT. Tests use it as the chip module to count the
 * calls the service makes (issue 7.4: C_Login). Its log holds the PIN bytes it saw: keep it
 * outside the config dir and delete it with the test.
 */
import { existsSync, readFileSync } from 'node:fs';

export const PKCS11_SPY = '/usr/lib/x86_64-linux-gnu/pkcs11-spy.so';

/** Environment for a process whose chip module is the spy in front of `module`. */
export function spyEnv(module: string, logFile: string): NodeJS.ProcessEnv {
  if (!existsSync(PKCS11_SPY)) throw new Error(`${PKCS11_SPY} is missing: install the opensc package`);
  return { PKCS11SPY: module, PKCS11SPY_OUTPUT: logFile };
}

/** How many times `name` was called, from a spy log (each call starts `N: C_Name`). */
export function spyCalls(logFile: string, name: string): number {
  if (!existsSync(logFile)) return 0;
  return readFileSync(logFile, 'latin1').split('\n').filter((line) => new RegExp(`^\\d+: ${name}$`, 'u').test(line.trimEnd())).length;
}

/** One logged call: its name, the userType of a C_Login, and what it returned. */
export interface SpyCall {
  name: string;
  userType: string | null;
  rv: string | null;
}

/**
 * The calls of a spy log in order (each block starts `N: C_Name`, its arguments follow as
 * `[in] name = value`, then `Returned:  N CKR_…`), for the order of C_SignInit, C_Login and C_Sign.
 */
export function spySequence(logFile: string): SpyCall[] {
  if (!existsSync(logFile)) return [];
  const calls: SpyCall[] = [];
  for (const line of readFileSync(logFile, 'latin1').split('\n')) {
    const head = /^\d+: (C_\w+)\s*$/u.exec(line);
    if (head) {
      calls.push({ name: head[1]!, userType: null, rv: null });
      continue;
    }
    const current = calls.at(-1);
    if (!current) continue;
    const user = /^\[in\] userType = (\S+)/u.exec(line);
    if (user) current.userType = user[1]!;
    const returned = /^Returned:\s+\d+\s+(CKR_\w+)/u.exec(line);
    if (returned) current.rv = returned[1]!;
  }
  return calls;
}
