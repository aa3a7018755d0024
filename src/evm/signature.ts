import { SigningError } from '../domain/errors';
import { lowS, signDigest } from '../ecdsa/sign-digest';
import { MAX_CHAIN_ID } from './tx-hash';

/**
 * secp256k1 signature shaping for EVM results: low-s (EIP-2), v (EIP-155 legacy), the JSON shape
 * of a DONE blockchain result (CONTRACT "Result semantics").
 */

/** Group order n of secp256k1 (SEC 2 §2.4.1). */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** EIP-2: Ethereum accepts only s <= n/2, so that (r, s) and (r, n - s) are not both valid. */
const HALF_N = SECP256K1_N >> 1n;

function bytesToBigint(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/**
 * Splits raw r‖s (what Chip.signDigest returns for secp256k1, s not normalised) and applies EIP-2:
 * s > n/2 becomes n - s. Flipping s mirrors the nonce point R to -R, so the recovery id flips too;
 * we never track that here because createRecoveryChecker derives y_parity from the final (r, s).
 */
export function normaliseLowS(rs: Uint8Array): { r: bigint; s: bigint; flipped: boolean } {
  if (!(rs instanceof Uint8Array) || rs.length !== 64) {
    const got = rs instanceof Uint8Array ? `${rs.length} bytes` : typeof rs;
    throw new SigningError(`secp256k1 signature must be 64 bytes r‖s, got ${got}`);
  }
  const r = bytesToBigint(rs.subarray(0, 32));
  const s = bytesToBigint(rs.subarray(32));
  if (r === 0n || r >= SECP256K1_N || s === 0n || s >= SECP256K1_N) {
    throw new SigningError('secp256k1 signature has r or s outside 1..n-1');
  }
  const low = lowS('secp256k1', s);
  return { r, s: low, flipped: low !== s };
}

/**
 * CONTRACT: `v` is 27 + y_parity without a chain id (pre-EIP-155, Yellow Paper Appendix F) and
 * chainId * 2 + 35 + y_parity with one (EIP-155). With chainId <= MAX_CHAIN_ID =
 * (2^53 - 1 - 39) / 2 the largest v is 2^53 - 4, so `v` is always a safe integer and survives JSON.
 */
export function computeV(yParity: 0 | 1, chainId: number | null): number {
  if (yParity !== 0 && yParity !== 1) throw new SigningError(`y_parity must be 0 or 1, got ${String(yParity)}`);
  if (chainId === null) return 27 + yParity;
  if (!Number.isSafeInteger(chainId) || chainId < 1 || chainId > MAX_CHAIN_ID) {
    throw new SigningError(`chain_id must be an integer from 1 to ${MAX_CHAIN_ID}, got ${String(chainId)}`);
  }
  return chainId * 2 + 35 + yParity;
}

export interface EvmSignatureParts {
  r: bigint;
  s: bigint;
  yParity: 0 | 1;
  chainId: number | null;
  address: string;
}

export interface EvmSignatureResult {
  r: string;
  s: string;
  v: number;
  y_parity: 0 | 1;
  address: string;
  chain_id: number | null;
}

function toHex32(n: bigint): string {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

/** The blockchain DONE fields: r, s as 0x + 64 lowercase hex; v per computeV; y_parity = recovery id. */
export function formatEvmSignature(parts: EvmSignatureParts): EvmSignatureResult {
  if (parts.s > HALF_N) throw new SigningError('refusing to format a high-s signature (EIP-2)');
  return {
    r: toHex32(parts.r),
    s: toHex32(parts.s),
    v: computeV(parts.yParity, parts.chainId),
    y_parity: parts.yParity,
    address: parts.address,
    chain_id: parts.chainId,
  };
}

/**
 * Signs a 32-byte digest as is (no prehash: the digest already is keccak256) with RFC 6979
 * deterministic nonces, returning raw r‖s with s NOT normalised, like CKM_ECDSA on a PKCS#11
 * token: the software chip must behave as the hardware one so the low-s path is always exercised.
 * The signature is ecdsa/sign-digest.ts's (k·G by OpenSSL); the tests hold it to noble's, ethers'
 * and the published RFC 6979 vectors.
 */
export function signDigestSecp256k1(secretKey: Uint8Array, digest: Uint8Array): Uint8Array {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) {
    const got = digest instanceof Uint8Array ? `${digest.length} bytes` : typeof digest;
    throw new SigningError(`digest must be 32 bytes, got ${got}`);
  }
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new SigningError('secp256k1 secret key must be 32 bytes');
  }
  try {
    return signDigest('secp256k1', secretKey, digest);
  } catch (cause) {
    // A secret key outside 1..n-1; the message never contains the key itself.
    throw new SigningError('secp256k1 signing failed: invalid secret key', { cause });
  }
}
