import { secp256k1 } from '@noble/curves/secp256k1.js';
import { SigningError } from '../domain/errors';
import { addressFromPublicKey } from './address';
import { SECP256K1_N } from './signature';

/**
 * Recovery id (y_parity) and the CONTRACT check "before DONE the service recovers the address from
 * the signature and checks it equals the credential's address".
 */

const Point = secp256k1.Point;
const Fn = Point.Fn;

/**
 * A copy of the base point with its own eager table (TABLE_WIDTH). noble's Point.BASE keeps a table for
 * constant-time `multiply`, but `multiplyUnsafe` on it takes the slower endomorphism path (0.17 to
 * 0.30 ms against 0.14 ms with a width-8 table of its own, measured on a 2-core machine); the check multiplies public values,
 * so unsafe is right.
 * Built on the first check in a thread (about 20 ms on a 2-core machine; a warm start makes it
 * ahead of need: signing/sign-tasks.ts), then shared by every credential.
 */
let tabledBase: InstanceType<typeof Point> | null = null;
function base(): InstanceType<typeof Point> {
  if (!tabledBase) {
    tabledBase = Point.fromAffine(Point.BASE.toAffine());
    tabledBase.precompute(TABLE_WIDTH, false);
  }
  return tabledBase;
}
/**
 * The wNAF window of the base point's and each key's table. Width 8 made a check 0.36 ms against
 * 0.46 ms at width 6, but cost a fresh thread 215 ms against 71 ms to build and first use for the
 * two tables (measured in a worker thread on a 2-core machine): the first EVM signature after a
 * start waits for them, every later one gains 0.1 ms.
 */
const TABLE_WIDTH = 6;
const MISMATCH = 'signature does not recover to the credential address';

export interface RecoveryChecker {
  /** EIP-55 address of the credential's key. */
  readonly address: string;
  /** The recovery id under which (r, s) over `digest` recovers to this key; throws SigningError otherwise. */
  recover(digest: Uint8Array, r: bigint, s: bigint): 0 | 1;
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
 * Built once per credential: the key's point with an eager wNAF table (TABLE_WIDTH), so each check costs
 * one table-driven multiplication of Q, one of the (already precomputed) base point G, an addition
 * and one field inversion, instead of two full recoveries (each a square root plus a double scalar
 * multiplication) and two comparisons.
 *
 * Why P = u1·G + u2·Q with u1 = e·s⁻¹, u2 = r·s⁻¹ gives the recovery id:
 * recovery with id v takes R_v, the curve point with x = r and y of parity v (SEC 1 §4.1.6), and
 * yields Q' = r⁻¹(s·R_v − e·G). Then Q' = Q ⇔ s·R_v − e·G = r·Q ⇔ R_v = s⁻¹(e·G + r·Q) = P.
 * So the signature recovers to Q under id v exactly when P.x = r and P.y has parity v; if P.x mod n
 * differs from r, no id recovers Q (it is plain ECDSA verification failing). P.x = r + n would need
 * id 2 or 3, which Ethereum cannot express; its probability is about 2^-128 and we refuse it.
 */
export function createRecoveryChecker(publicKey: Uint8Array): RecoveryChecker {
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
  Q.precompute(TABLE_WIDTH, false);
  const address = addressFromPublicKey(publicKey);
  return {
    address,
    recover(digest: Uint8Array, r: bigint, s: bigint): 0 | 1 {
      assertDigest(digest);
      assertScalar('r', r);
      assertScalar('s', s);
      const sInv = Fn.inv(s);
      const u1 = Fn.mul(digestScalar(digest), sInv);
      const u2 = Fn.mul(r, sInv);
      // multiplyUnsafe accepts 0 (u1 = 0 when e ≡ 0); G and Q both use their wNAF tables.
      const P = base().multiplyUnsafe(u1).add(Q.multiplyUnsafe(u2));
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
