/**
 * Public-key recovery on secp256k1 (SEC 1 v2 §4.1.6), so the client can check that an EVM
 * signature the service answered was made by the credential's key, with no dependency. It handles
 * public values only (a signature, a hash), so plain BigInt arithmetic, which is not constant time,
 * is right here. Jacobian coordinates (no inversion per step) and Shamir's trick (u1·G + u2·R in one
 * pass of doublings). Checked against the EIP-155 example, the RFC 6979 vectors and @noble/curves
 * (test/secp256k1.test.ts).
 */

// SEC 2 v2 §2.4.1: y² = x³ + 7 over F_p, base point G of prime order n.
export const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const GX = 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n;
const GY = 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n;

interface Jacobian {
  x: bigint;
  y: bigint;
  z: bigint; // 0: the point at infinity
}
const INFINITY: Jacobian = { x: 0n, y: 1n, z: 0n };

const mod = (a: bigint, m: bigint = P): bigint => {
  const r = a % m;
  return r < 0n ? r + m : r;
};

/** a⁻¹ mod m by the extended Euclidean algorithm (m prime, a ≠ 0 mod m). */
export function invert(a: bigint, m: bigint): bigint {
  let [r0, r1] = [mod(a, m), m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new RangeError('not invertible');
  return mod(s0, m);
}

function powMod(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

/** dbl-2009-l (a = 0), Explicit-Formulas Database. */
function double(p: Jacobian): Jacobian {
  if (p.z === 0n || p.y === 0n) return INFINITY;
  const a = mod(p.x * p.x);
  const b = mod(p.y * p.y);
  const c = mod(b * b);
  const d = mod(2n * (mod((p.x + b) * (p.x + b)) - a - c));
  const e = mod(3n * a);
  const f = mod(e * e);
  const x = mod(f - 2n * d);
  return { x, y: mod(e * (d - x) - 8n * c), z: mod(2n * p.y * p.z) };
}

/** add-1998-cmo-2, Explicit-Formulas Database; falls back to doubling for equal points. */
function add(p: Jacobian, q: Jacobian): Jacobian {
  if (p.z === 0n) return q;
  if (q.z === 0n) return p;
  const z1z1 = mod(p.z * p.z);
  const z2z2 = mod(q.z * q.z);
  const u1 = mod(p.x * z2z2);
  const u2 = mod(q.x * z1z1);
  const s1 = mod(p.y * q.z * z2z2);
  const s2 = mod(q.y * p.z * z1z1);
  const h = mod(u2 - u1);
  const r = mod(s2 - s1);
  if (h === 0n) return r === 0n ? double(p) : INFINITY;
  const hh = mod(h * h);
  const hhh = mod(h * hh);
  const v = mod(u1 * hh);
  const x = mod(r * r - hhh - 2n * v);
  return { x, y: mod(r * (v - x) - s1 * hhh), z: mod(p.z * q.z * h) };
}

/** a·A + b·B in one pass of doublings (Shamir's trick). */
function doubleMultiply(a: bigint, pa: Jacobian, b: bigint, pb: Jacobian): Jacobian {
  const both = add(pa, pb);
  let acc = INFINITY;
  for (let i = 255; i >= 0; i -= 1) {
    acc = double(acc);
    const bit = BigInt(i);
    const hasA = (a >> bit) & 1n;
    const hasB = (b >> bit) & 1n;
    if (hasA && hasB) acc = add(acc, both);
    else if (hasA) acc = add(acc, pa);
    else if (hasB) acc = add(acc, pb);
  }
  return acc;
}

function affine(p: Jacobian): { x: bigint; y: bigint } {
  const zi = invert(p.z, P);
  const zi2 = mod(zi * zi);
  return { x: mod(p.x * zi2), y: mod(p.y * zi2 * zi) };
}

/** The curve point with this x and y of this parity (SEC 1 §2.3.4), or null when x is on no point. */
function liftX(x: bigint, odd: boolean): Jacobian | null {
  if (x <= 0n || x >= P) return null;
  const alpha = mod(x * x * x + 7n);
  // p ≡ 3 (mod 4): a square root of alpha is alpha^((p+1)/4), when alpha is a square.
  const beta = powMod(alpha, (P + 1n) / 4n);
  if (mod(beta * beta) !== alpha) return null;
  return { x, y: (beta & 1n) === (odd ? 1n : 0n) ? beta : P - beta, z: 1n };
}

/**
 * The public key (uncompressed X‖Y, 64 bytes as two bigints) whose signature (r, s) over the 32-byte
 * `hash` has recovery id `yParity`, per SEC 1 §4.1.6 with j = 0 (R.x = r; Ethereum cannot express
 * R.x = r + n): Q = r⁻¹(s·R − e·G). null when no key recovers: r or s out of 1..n-1, r not the x of
 * a curve point, or Q at infinity.
 */
export function recoverPublicKey(hash: Uint8Array, r: bigint, s: bigint, yParity: 0 | 1): { x: bigint; y: bigint } | null {
  if (hash.length !== 32) throw new RangeError(`hash must be 32 bytes, got ${hash.length}`);
  if (r <= 0n || r >= N || s <= 0n || s >= N) return null;
  const point = liftX(r, yParity === 1);
  if (!point) return null;
  let e = 0n;
  for (const byte of hash) e = (e << 8n) | BigInt(byte);
  const rInv = invert(r, N);
  const u1 = mod(-e * rInv, N);
  const u2 = mod(s * rInv, N);
  const q = doubleMultiply(u1, { x: GX, y: GY, z: 1n }, u2, point);
  return q.z === 0n ? null : affine(q);
}
