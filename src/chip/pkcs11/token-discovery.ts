/**
 * Finding a token by its label across the module's slots (PKCS#11 v2.40 §5.5 slot and token
 * management). Slot ids change when a device is plugged in again; the label does not.
 */
import { ChipError } from '../../domain/errors';
import type { Pkcs11Api } from './bindings';
import { CKF_PROTECTED_AUTHENTICATION_PATH, TOKEN_LABEL_LENGTH } from './constants';
import { CKR_BUFFER_TOO_SMALL, check } from './return-codes';

// Generous for CK_TOKEN_INFO (208 bytes on Linux x64) so no ABI detail can overrun it.
const TOKEN_INFO_SIZE = 1024;
const TOKEN_FLAGS_OFFSET = 96;
const CKF_TOKEN_INITIALIZED = 0x400n;

/** The wanted token is not in any slot (never plugged in, pulled out, or a wrong label). */
export class TokenNotPresentError extends ChipError {}

export interface TokenRef {
  slot: bigint;
  label: string;
  /** CKF_PROTECTED_AUTHENTICATION_PATH: a PIN pad on the reader (the person types the PIN there). */
  pinPad: boolean;
  /** CK_TOKEN_INFO.flags when the token was found (the user PIN's state among them: pin-flags.ts). */
  flags: bigint;
}

async function listSlots(api: Pkcs11Api): Promise<bigint[]> {
  const arena = api.arena();
  try {
    for (;;) {
      const count = arena.ulong(0);
      check('C_GetSlotList', await api.call('C_GetSlotList', 1, null, count));
      const n = Number(arena.readUlong(count));
      if (n === 0) return [];
      const ulongSize = api.koffi.sizeof('unsigned long');
      const list = arena.alloc(n * ulongSize);
      const rv = await api.call('C_GetSlotList', 1, list, count);
      if (rv === CKR_BUFFER_TOO_SMALL) continue; // a token arrived between the two calls
      check('C_GetSlotList', rv);
      const found = Number(arena.readUlong(count));
      return Array.from({ length: found }, (_, i) => arena.readUlong(list, i * ulongSize));
    }
  } finally {
    arena.free();
  }
}

/** CK_TOKEN_INFO of `slot`: its label and flags, or null when C_GetTokenInfo fails (the token went). */
async function readTokenInfo(api: Pkcs11Api, slot: bigint): Promise<{ label: string; flags: bigint } | null> {
  const arena = api.arena();
  try {
    const info = arena.alloc(TOKEN_INFO_SIZE);
    const rv = await api.call('C_GetTokenInfo', slot, info);
    if (rv !== 0) return null;
    // CK_TOKEN_INFO: label[32], manufacturerID[32], model[16], serialNumber[16], then flags
    // (v2.40 §3.2); the char arrays need no padding, so flags sits at offset 96 on every ABI.
    const flags = arena.readUlong(info, TOKEN_FLAGS_OFFSET);
    // The label is 32 UTF-8 bytes, blank padded, not NUL-terminated.
    const raw = Buffer.from(arena.read(info, TOKEN_LABEL_LENGTH));
    return { label: raw.toString('utf8').replace(/[\s\0]+$/u, ''), flags };
  } finally {
    arena.free();
  }
}

/** The token's flags now (CK_TOKEN_INFO.flags), or null when it does not answer. */
export async function readTokenFlags(api: Pkcs11Api, slot: bigint): Promise<bigint | null> {
  return (await readTokenInfo(api, slot))?.flags ?? null;
}

/** The token's label and flags, or null when the slot holds no usable (initialised) token. */
async function readToken(api: Pkcs11Api, slot: bigint): Promise<Omit<TokenRef, 'slot'> | null> {
  const info = await readTokenInfo(api, slot);
  // Token pulled between C_GetSlotList and here: not present. A slot with an uninitialised token
  // (SoftHSM2 always shows one free slot) holds no keys.
  if (!info || (info.flags & CKF_TOKEN_INITIALIZED) === 0n) return null;
  return { label: info.label, pinPad: (info.flags & CKF_PROTECTED_AUTHENTICATION_PATH) !== 0n, flags: info.flags };
}

/** Every initialised token present now, in slot order. */
export async function listTokens(api: Pkcs11Api): Promise<TokenRef[]> {
  const tokens: TokenRef[] = [];
  for (const slot of await listSlots(api)) {
    const token = await readToken(api, slot);
    if (token !== null) tokens.push({ slot, ...token });
  }
  return tokens;
}

/** The labels of the tokens present on the module at `modulePath` now (`--chip-all-tokens`). */
export async function presentTokenLabels(modulePath: string): Promise<string[]> {
  const { acquirePkcs11Module } = await import('./module-registry');
  const module = await acquirePkcs11Module(modulePath);
  try {
    return (await listTokens(module.api)).map((t) => t.label);
  } finally {
    await module.release();
  }
}

/**
 * Finds the token by label; slot ids change between plug-ins, labels do not. Without a label,
 * exactly one token must be present.
 */
export async function findToken(api: Pkcs11Api, tokenLabel: string | undefined): Promise<TokenRef> {
  const tokens = await listTokens(api);
  const labels = tokens.length === 0 ? 'none' : tokens.map((t) => `'${t.label}'`).join(', ');
  if (tokenLabel !== undefined) {
    // Labels are blank padded on the token; a configured label with trailing blanks still matches.
    const match = tokens.find((t) => t.label === tokenLabel.trimEnd());
    if (match) return match;
    throw new TokenNotPresentError(`token '${tokenLabel}' not present (not found in ${api.modulePath}; tokens present: ${labels})`);
  }
  if (tokens.length === 1 && tokens[0]) return tokens[0];
  if (tokens.length === 0) throw new TokenNotPresentError(`no token present in ${api.modulePath}`);
  throw new ChipError(`several tokens present in ${api.modulePath} (${labels}); choose one by its label`);
}
