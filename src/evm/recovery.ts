import { secp256k1 } from '@noble/curves/secp256k1.js';
import { SigningError } from '../domain/errors';
import { addressFromPublicKey } from './address';
import { SECP256K1_N } from './signature';

/**
 * Recovery id (y_parity) and the CONTRACT check "before DONE the service recovers the address from
 * the signature and checks it equals the credential's address", for a signature made where the
 * secret is out of reach: a PKCS#11 chip's. The software chip's signatures are checked as they are
 * made, with the secret in hand and no table (ecdsa/sign-digest.ts signDigestRecoverable).
 */

const Point = secp256k1.Point;
const Fn = Point.Fn;

/**
 * The wNAF windows of the tables the check multiplies with (noble's `precompute`). A narrow table
 * is quick to make: in a fresh thread, building and first using the base point's and a key's took
 * 71 ms at width 6 against 215 ms at width 8, and the first check of a thread waits for them. A
 * wide one makes each check cheaper: 0.36 ms against 0.46 ms, about 7% of the signatures
 * a busy service makes per second on 2 cores (npm run bench evm, both widths in turn). So a key
 * starts narrow and is widened once it is checked BUSY_CHECKS times within BUSY_WINDOW_MS: a
 * service under load, never a person signing now and then. (All measured on a 2-core machine.)
 */
const NARROW = 6;
const WIDE = 8;
const BUSY_CHECKS = 64;
const BUSY_WINDOW_MS = 1000;

/**
 * A copy of the base point with its own eager table of `width`. noble's Point.BASE keeps a table
 * for constant-time `multiply`, but `multiplyUnsafe` on it takes the slower endomorphism path (0.17
 * to 0.30 ms against 0.14 ms with a width-8 table of its own, measured on a 2-core machine); the
 * check multiplies public values, so unsafe is right. Built on the first check in a thread that
 * needs it, then shared by every credential.
 */
const tabledBase = new Map<number, InstanceType<typeof Point>>();
function base(width: number): InstanceType<typeof Point> {
  let point = tabledBase.get(width);
  if (!point) {
    point = Point.fromAffine(Point.BASE.toAffine());
    point.precompute(width, false);
    tabledBase.set(width, point);
  }
  return point;
}

const MISMATCH = 'signature does not recover to the credential address';

export interface RecoveryChecker {
  /** EIP-55 address of the credential's key. */
  readonly address: string;
  /** The recovery id under which (r, s) over `digest` recovers to this key; throws SigningError otherwise. */
  recover(digest: Uint8Array, r: bigint, s: bigint): 0 | 1;
  /** The wNAF window of the tables its checks use now: narrow, or wide once the key is busy. */
  readonly tableWidth: number;
}

function assertDigest(digest: Uint8Array): void {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) {
    const got = digest instanceof Uint8Array ? `${digest.length} bytes` : typeof digest;
    throw new SigningError(`digest must be 32 bytes, got ${got}`);
  }
}

function assertScalar(name: string, value: bigint): void {
  if (typeof value !== 'bigint' || value <= 0n || value >= SECP256K1_N) {
    throw new SigningError(`${name} must be in 1..n-1 (SEC 1 §4.1.4)`);
  }
}

/** e = the 32-byte digest read big-endian, reduced mod n (SEC 1 §4.1.4 step 2-3, 256-bit hash). */
function digestScalar(digest: Uint8Array): bigint {
  let e = 0n;
  for (const b of digest) e = (e << 8n) | BigInt(b);
  return Fn.create(e);
}

/**
 * Built once per credential: the key's point with an eager wNAF table (NARROW, then WIDE), so each
 * check costs one table-driven multiplication of Q, one of the (already precomputed) base point G,
 * an addition and one field inversion, instead of two full recoveries (each a square root plus a
 * double scalar multiplication) and two comparisons.
 *
 * Why P = u1·G + u2·Q with u1 = e·s⁻¹, u2 = r·s⁻¹ gives the recovery id:
 * recovery with id v takes R_v, the curve point with x = r and y of parity v (SEC 1 §4.1.6), and
 * yields Q' = r⁻¹(s·R_v − e·G). Then Q' = Q ⇔ s·R_v − e·G = r·Q ⇔ R_v = s⁻¹(e·G + r·Q) = P.
 * So the signature recovers to Q under id v exactly when P.x = r and P.y has parity v; if P.x mod n
 * differs from r, no id recovers Q (it is plain ECDSA verification failing). P.x = r + n would need
 * id 2 or 3, which Ethereum cannot express; its probability is about 2^-128 and we refuse it.
 */
export function createRecoveryChecker(publicKey: Uint8Array, now: () => number = () => performance.now()): RecoveryChecker {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 65 || publicKey[0] !== 0x04) {
    const got = publicKey instanceof Uint8Array ? `${publicKey.length} bytes` : typeof publicKey;
    throw new SigningError(`secp256k1 public key must be 65 bytes 0x04‖X‖Y, got ${got}`);
  }
  let Q;
  try {
    Q = Point.fromBytes(publicKey); // checks the point is on the curve
  } catch (cause) {
    throw new SigningError('secp256k1 public key is not a point on the curve', { cause });
  }
  Q.precompute(NARROW, false);
  // The tables in use: the shared base point's, and this key's (a wide one on a copy of Q, as
  // noble keeps one table per point object; so `key === Q` while narrow).
  let g = base(NARROW);
  let key = Q;
  let windowStart = -Infinity;
  let inWindow = 0;
  const address = addressFromPublicKey(publicKey);
  return {
    address,
    get tableWidth() {
      return key === Q ? NARROW : WIDE;
    },
    recover(digest: Uint8Array, r: bigint, s: bigint): 0 | 1 {
      if (key === Q) {
        const t = now();
        if (t - windowStart > BUSY_WINDOW_MS) {
          windowStart = t;
          inWindow = 0;
        }
        inWindow += 1;
        if (inWindow >= BUSY_CHECKS) {
          g = base(WIDE);
          key = Point.fromAffine(Q.toAffine());
          key.precompute(WIDE, false);
        }
      }
      assertDigest(digest);
      assertScalar('r', r);
      assertScalar('s', s);
      const sInv = Fn.inv(s);
      const u1 = Fn.mul(digestScalar(digest), sInv);
      const u2 = Fn.mul(r, sInv);
      // multiplyUnsafe accepts 0 (u1 = 0 when e ≡ 0); G and Q both use their wNAF tables.
      const P = g.multiplyUnsafe(u1).add(key.multiplyUnsafe(u2));
      if (P.is0()) throw new SigningError(MISMATCH);
      const { x, y } = P.toAffine();
      if (x !== r) {
        if (x % SECP256K1_N === r) throw new SigningError('signature needs recovery id 2 or 3, which EVM v cannot express');
        throw new SigningError(MISMATCH);
      }
      return (y & 1n) === 0n ? 0 : 1;
    },
  };
}

/**
 * Plain recovery through noble (SEC 1 §4.1.6): the address a signature recovers to under one id.
 * The service uses it for a credential known by its address only (one the platform signs:
 * signing/kinds/evm.ts); with the credential's public key it uses createRecoveryChecker, which is
 * several times faster.
 */
export function recoverAddress(digest: Uint8Array, r: bigint, s: bigint, yParity: 0 | 1): string {
  assertDigest(digest);
  assertScalar('r', r);
  assertScalar('s', s);
  if (yParity !== 0 && yParity !== 1) throw new SigningError(`y_parity must be 0 or 1, got ${String(yParity)}`);
  let point;
  try {
    point = new secp256k1.Signature(r, s, yParity).recoverPublicKey(digest);
  } catch (cause) {
    throw new SigningError('signature does not recover to any public key', { cause });
  }
  return addressFromPublicKey(point.toBytes(false));
}
