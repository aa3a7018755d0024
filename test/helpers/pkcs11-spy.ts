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
