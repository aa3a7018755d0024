/**
 * Keccak-256 as Ethereum uses it (the Keccak submission's padding 0x01…0x80, not FIPS 202's SHA3
 * 0x06): the address of a public key is the last 20 bytes of its hash (Ethereum yellow paper,
 * appendix F), and EIP-55 checksums an address with the hash of its hex. Inputs here are at most
 * a few dozen bytes, so it is written for clarity: 64-bit lanes as two 32-bit halves, Keccak-f[1600]
 * per FIPS 202 §3.2 (θ, ρ, π, χ, ι). Checked against the EIP-155 signing hash and @noble/hashes
 * (test/keccak.test.ts).
 */

const RATE = 136; // bytes: 1600 - 2·256 bits of capacity

/** ρ offsets r[x + 5y] (FIPS 202 Table 2). */
const RHO = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];

/** ι round constants from the LFSR x^8 + x^6 + x^5 + x^4 + 1 (FIPS 202 Algorithm 5), as [lo, hi]. */
const IOTA: [number, number][] = (() => {
  const out: [number, number][] = [];
  let r = 1;
  for (let round = 0; round < 24; round += 1) {
    let lo = 0;
    let hi = 0;
    for (let j = 0; j < 7; j += 1) {
      r = ((r << 1) ^ ((r >> 7) * 0x71)) & 0xff;
      if (r & 2) {
        const bit = (1 << j) - 1; // bit positions 0, 1, 3, 7, 15, 31, 63
        if (bit < 32) lo ^= 1 << bit;
        else hi ^= 1 << (bit - 32);
      }
    }
    out.push([lo >>> 0, hi >>> 0]);
  }
  return out;
})();

/** Rotates the lane (lo, hi) left by n into out[at], out[at + 1]. */
function rotate(lo: number, hi: number, n: number, out: Uint32Array, at: number): void {
  if (n >= 32) {
    [lo, hi] = [hi, lo];
    n -= 32;
  }
  out[at] = n === 0 ? lo : (lo << n) | (hi >>> (32 - n));
  out[at + 1] = n === 0 ? hi : (hi << n) | (lo >>> (32 - n));
}

function permute(s: Uint32Array): void {
  const c = new Uint32Array(10);
  const d = new Uint32Array(2);
  const b = new Uint32Array(50);
  for (const [rcLo, rcHi] of IOTA) {
    // θ: each lane gets the parity of two neighbouring columns.
    for (let x = 0; x < 5; x += 1) {
      c[2 * x] = s[2 * x]! ^ s[2 * x + 10]! ^ s[2 * x + 20]! ^ s[2 * x + 30]! ^ s[2 * x + 40]!;
      c[2 * x + 1] = s[2 * x + 1]! ^ s[2 * x + 11]! ^ s[2 * x + 21]! ^ s[2 * x + 31]! ^ s[2 * x + 41]!;
    }
    for (let x = 0; x < 5; x += 1) {
      const left = (x + 4) % 5;
      const right = (x + 1) % 5;
      rotate(c[2 * right]!, c[2 * right + 1]!, 1, d, 0);
      for (let y = 0; y < 5; y += 1) {
        const i = 2 * (x + 5 * y);
        s[i] = s[i]! ^ c[2 * left]! ^ d[0]!;
        s[i + 1] = s[i + 1]! ^ c[2 * left + 1]! ^ d[1]!;
      }
    }
    // ρ and π: lane (x, y) rotated to (y, 2x + 3y).
    for (let x = 0; x < 5; x += 1) {
      for (let y = 0; y < 5; y += 1) {
        const from = x + 5 * y;
        const to = y + 5 * ((2 * x + 3 * y) % 5);
        rotate(s[2 * from]!, s[2 * from + 1]!, RHO[from]!, b, 2 * to);
      }
    }
    // χ: each bit mixed with the next two lanes of its row.
    for (let y = 0; y < 5; y += 1) {
      for (let x = 0; x < 5; x += 1) {
        const i = 2 * (x + 5 * y);
        const i1 = 2 * (((x + 1) % 5) + 5 * y);
        const i2 = 2 * (((x + 2) % 5) + 5 * y);
        s[i] = b[i]! ^ (~b[i1]! & b[i2]!);
        s[i + 1] = b[i + 1]! ^ (~b[i1 + 1]! & b[i2 + 1]!);
      }
    }
    // ι
    s[0] = s[0]! ^ rcLo;
    s[1] = s[1]! ^ rcHi;
  }
}

/** XORs byte `value` into byte `index` of the state (lanes little-endian, FIPS 202 §B.1). */
function xorByte(s: Uint32Array, index: number, value: number): void {
  const lane = index >> 3;
  const within = index & 7;
  const i = 2 * lane + (within >> 2);
  s[i] = s[i]! ^ (value << (8 * (within & 3)));
}

export function keccak256(data: Uint8Array): Uint8Array {
  const s = new Uint32Array(50);
  let at = 0;
  for (; at + RATE <= data.length; at += RATE) {
    for (let i = 0; i < RATE; i += 1) xorByte(s, i, data[at + i]!);
    permute(s);
  }
  const rest = data.length - at;
  for (let i = 0; i < rest; i += 1) xorByte(s, i, data[at + i]!);
  xorByte(s, rest, 0x01);
  xorByte(s, RATE - 1, 0x80);
  permute(s);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) out[i] = (s[2 * (i >> 3) + ((i & 7) >> 2)]! >>> (8 * (i & 3))) & 0xff;
  return out;
}
