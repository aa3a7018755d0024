/** Hex and big-endian integers for the client's byte work (no Buffer: the client also runs in a browser). */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function hexOf(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += HEX[b];
  return out;
}

/** Bytes of an even-length hex string; null when it is not one. */
export function bytesOfHex(hex: string): Uint8Array | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bigintOf(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${hexOf(bytes)}`);
}

/** `value` as `length` big-endian bytes (it must fit). */
export function bytesOfBigint(value: bigint, length: number): Uint8Array {
  const hex = value.toString(16).padStart(2 * length, '0');
  return bytesOfHex(hex)!;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}
