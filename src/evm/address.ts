import { keccak_256 } from '@noble/hashes/sha3.js';
import { InvalidInputError } from '../domain/errors';

/** Ethereum addresses: keccak256 of the public key, last 20 bytes (Yellow Paper §7), EIP-55 case. */

const HEX40 = /^(?:0[xX])?([0-9a-fA-F]{40})$/;

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/**
 * EIP-55: hash the lowercase hex address (ASCII, no 0x) with keccak256; a letter is upper case
 * when the matching nibble of the hash is >= 8. Accepts 40 hex digits with or without 0x, any case.
 */
export function toChecksumAddress(hex40: string): string {
  const match = HEX40.exec(hex40);
  if (!match) {
    throw new InvalidInputError(`address must be 40 hex digits after an optional 0x prefix, got ${hex40.length} characters`);
  }
  const lower = match[1]!.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    const c = lower[i]!;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** `pub65` is the SEC1 uncompressed point 04‖X‖Y (what ChipKey.publicKey holds for secp256k1). */
export function addressFromPublicKey(pub65: Uint8Array): string {
  if (!(pub65 instanceof Uint8Array) || pub65.length !== 65 || pub65[0] !== 0x04) {
    const got = pub65 instanceof Uint8Array ? `${pub65.length} bytes` : typeof pub65;
    throw new InvalidInputError(`public key must be 65 bytes (0x04‖X‖Y, SEC1 uncompressed), got ${got}`);
  }
  const hash = keccak_256(pub65.subarray(1));
  return toChecksumAddress(toHex(hash.subarray(12)));
}
