/**
 * The PIN-pad shim (issue 16): a PKCS#11 module built from `pinpad-shim/pinpad-shim.c` with the
 * machine's gcc, which puts SoftHSM2 behind a simulated reader. Without a keypad file
 * (`cardEnv`) it is a plain reader whose card reports the PIN state a test sets
 * (`setTokenFlags`: CKF_USER_PIN_COUNT_LOW, FINAL_TRY, LOCKED, which SoftHSM2 never sets; issue
 * 31). With one (`pinpadEnv`) the reader has a PIN pad: the token reports
 * CKF_PROTECTED_AUTHENTICATION_PATH, C_Login must come with a NULL PIN, and the "person at the
 * pad" is a file: `type(file, pin)` types, `type(file, NEVER)` or no file at all is a person who
 * never types (the login waits until its session is closed, then CKR_FUNCTION_CANCELED);
 * `type(file, HOLD)` is a reader that ignores that close until the keypad changes.
 *
 * The file keeps its content after a login: every later NULL-PIN login (one per signature with an
 * always-authenticate key) reads it again, as if the person typed each time. `clearKeypad`
 * takes the person away.
 *
 * The shim's log (PINPAD_SHIM_LOG) never holds a PIN; its lines:
 *   `C_Login user=<n> pin=NULL`              a NULL-PIN login started waiting at the pad
 *   `pad user=<n> rv=0x<hex>`                what that login returned (0x50: cancelled)
 *   `C_Login user=<n> pin=NON-NULL rv=0x7`   a PIN sent by the host, refused
 *   `C_Sign rv=0x<hex>` (` length-only` when pSignature was NULL)
 *   `C_Login user=<n> pin=HOST rv=0x<hex>`  without a pad: the host's PIN, forwarded
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
export const PINPAD_SHIM_SOURCE = join(ROOT, 'test', 'helpers', 'pinpad-shim', 'pinpad-shim.c');
const CACHE = join(ROOT, 'node_modules', '.cache', 'localsign-pinpad-shim');

/** Keypad content of a person who never types. */
export const NEVER = 'never';

/**
 * Keypad content of a reader that does not cancel its wait when the session is closed (a driver
 * that keeps the token until the person acts): the login returns CKR_FUNCTION_CANCELED only once
 * the keypad changes, so the token stays busy past the request that asked.
 */
export const HOLD = 'hold';

/** CK_RV values the shim itself returns or passes through, for assertions. */
export const CKR = {
  OK: 0x0,
  ARGUMENTS_BAD: 0x7,
  FUNCTION_CANCELED: 0x50,
  PIN_INCORRECT: 0xa0,
  USER_NOT_LOGGED_IN: 0x101,
} as const;

let built: string | undefined;

/**
 * Compiles the shim once per source content (the cache dir is keyed by the source's sha256, so
 * test files running in parallel share one build) and returns the .so path. A lock dir keeps two
 * processes from compiling at once; the .so is written under a temporary name and renamed, so no
 * reader ever loads a half-written file. A missing gcc fails the test run, never skips it.
 */
export function buildPinpadShim(): string {
  if (built && existsSync(built)) return built;
  const source = readFileSync(PINPAD_SHIM_SOURCE);
  const key = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(CACHE, key);
  const output = join(dir, 'pinpad-shim.so');
  if (existsSync(output)) return (built = output);

  mkdirSync(dir, { recursive: true });
  const lock = join(dir, '.build.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(output)) return (built = output);
      // A lock left by a killed run: gcc takes about a second, so a minute-old lock is stale.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 60_000) rmdirSync(lock);
      } catch {
        // removed meanwhile by its owner
      }
      if (Date.now() > deadline) throw new Error(`${lock} held for 2 minutes: remove it if no build runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    if (!existsSync(output)) {
      const partial = `${output}.${process.pid}.tmp`;
      try {
        execFileSync('gcc', ['-shared', '-fPIC', '-O2', '-Wall', '-Werror', '-o', partial, PINPAD_SHIM_SOURCE, '-ldl', '-lpthread'], {
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 60_000,
        });
      } catch (error) {
        const e = error as { code?: unknown; stderr?: unknown; message?: string };
        rmSync(partial, { force: true });
        throw new Error(`gcc could not build the PIN-pad shim (${String(e.code)}): ${String(e.stderr ?? e.message)}`);
      }
      renameSync(partial, output);
      // Builds of earlier sources are not needed any more (a process that loaded one keeps its
      // mapping on Linux).
      for (const other of readdirSync(CACHE)) if (other !== key) rmSync(join(CACHE, other), { recursive: true, force: true });
    }
  } finally {
    rmdirSync(lock);
  }
  return (built = output);
}

/** Environment for a process whose chip module is the shim in front of `realModule`. */
export function pinpadEnv(realModule: string, keypadFile: string, logFile?: string): NodeJS.ProcessEnv {
  return {
    PINPAD_SHIM_MODULE: realModule,
    PINPAD_SHIM_KEYPAD: keypadFile,
    ...(logFile === undefined ? {} : { PINPAD_SHIM_LOG: logFile }),
  };
}

/** CK_TOKEN_INFO.flags bits of the user PIN's state (PKCS#11 v2.40 §3.2, table 8). */
export const PIN_FLAGS = { COUNT_LOW: 0x10000, FINAL_TRY: 0x20000, LOCKED: 0x40000 } as const;

/**
 * Environment for a process whose chip module is the shim in front of `realModule`, as a reader
 * without a PIN pad: C_Login is the real module's, and the card adds the flags in `flagsFile`.
 */
export function cardEnv(realModule: string, flagsFile: string, logFile?: string): NodeJS.ProcessEnv {
  return {
    PINPAD_SHIM_MODULE: realModule,
    PINPAD_SHIM_FLAGS: flagsFile,
    ...(logFile === undefined ? {} : { PINPAD_SHIM_LOG: logFile }),
  };
}

/** From now on the card reports `flags` besides its own (0: only its own); read at each C_GetTokenInfo. */
export function setTokenFlags(flagsFile: string, flags: number): void {
  const temporary = join(dirname(flagsFile), `.${basename(flagsFile)}.${process.pid}.tmp`);
  writeFileSync(temporary, `0x${flags.toString(16)}\n`);
  renameSync(temporary, flagsFile);
}

/**
 * The person types `pin` on the pad (and presses OK: a newline the shim strips). Written to a
 * temporary file and renamed, so the shim never reads half a PIN. `type(file, NEVER)`: the person
 * is there but never types.
 */
export function type(keypadFile: string, pin: string): void {
  const temporary = join(dirname(keypadFile), `.${basename(keypadFile)}.${process.pid}.tmp`);
  writeFileSync(temporary, `${pin}\n`, { mode: 0o600 });
  renameSync(temporary, keypadFile);
}

/** Nobody at the pad: a NULL-PIN login waits until the file appears or its session is closed. */
export function clearKeypad(keypadFile: string): void {
  rmSync(keypadFile, { force: true });
}

/** The shim log's lines (see the file comment), [] before the first line is written. */
export function shimLog(logFile: string): string[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8').split('\n').filter((line) => line.length > 0);
}
