import { randomBytes, randomUUID } from 'node:crypto';

/** Identifier prefixes fixed by the spec (§2, §5) — one place, so they never drift. */
export const REQUEST_ID_PREFIX = 'req_';
export const ERROR_ID_PREFIX = 'err_';
export const WRAPPER_KEY_PREFIX = 'wrp_';
export const WRAPPER_SECRET_PREFIX = 'wsec_';

/** 16 random bytes = 128 bits, base64url: opaque and URL-safe. */
function opaque(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

export const newRequestId = (): string => REQUEST_ID_PREFIX + opaque(12);
export const newErrorId = (): string => ERROR_ID_PREFIX + opaque(9);
export const newWrapperKey = (): string => WRAPPER_KEY_PREFIX + opaque(12);
/** CONTRACT: wrapper secrets carry at least 128 random bits; these carry 256. */
export const newWrapperSecret = (): string => WRAPPER_SECRET_PREFIX + opaque(32);
export const newUuid = (): string => randomUUID();
