import { constants, createPrivateKey, privateEncrypt, type KeyObject } from 'node:crypto';
import type { SoftSignTask, SoftSignTaskResult } from '../chip/types';
import { signDigestP256 } from '../chip/p256-sign';
import { fullCollection } from '../config/full-collection';
import { publicKeyOf, secp256k1PublicKeyOf } from '../chip/soft-keys';
import { sha256DigestInfo } from '../der/keys';
import { createRecoveryChecker, normaliseLowS, signDigestSecp256k1 } from '../evm';

/**
 * CPU-bound signing steps, run in worker threads (or inline when there are none). Plain data in
 * and out, so the same function serves both. Keys arrive per task; parsed keys and recovery
 * tables are cached per worker.
 */
export type SignTask =
  | SoftSignTask
  | { op: 'evm-recover'; publicKey: Uint8Array; digest: Uint8Array; r: bigint; s: bigint }
  /**
   * A thread started ahead of need (pool keepWarm): the curves' tables, and the recovery tables of
   * the software chip's EVM keys, given by their secret scalars (chip/soft-chip.ts).
   */
  | { op: 'warm'; secp256k1Secrets: Uint8Array[] }
  /** The service is idle after a burst: what the burst left in this thread is collected (WorkerPool.tidy). */
  | { op: 'collect' };

export type SignTaskResult = SoftSignTaskResult | number;


const rsaKeys = new Map<string, KeyObject>();
/** A secret key of no one's, for the warm-up's signatures (1 is a valid scalar on both curves). */
const WARM_KEY = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0));
const checkers = new Map<string, ReturnType<typeof createRecoveryChecker>>();

function checkerFor(publicKey: Uint8Array): ReturnType<typeof createRecoveryChecker> {
  const id = Buffer.from(publicKey).toString('hex');
  let checker = checkers.get(id);
  if (!checker) {
    checker = createRecoveryChecker(publicKey);
    checkers.set(id, checker);
  }
  return checker;
}

export function runSignTask(task: SignTask): SignTaskResult {
  switch (task.op) {
    case 'rsa-sign': {
      let key = rsaKeys.get(task.keyPem);
      if (!key) {
        key = createPrivateKey(task.keyPem);
        rsaKeys.set(task.keyPem, key);
      }
      // privateEncrypt with PKCS#1 padding is RSASSA-PKCS1-v1_5 over the given DigestInfo.
      const input = sha256DigestInfo(task.digest);
      return new Uint8Array(privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, input));
    }
    case 'p256-sign':
      // Over the digest itself, like CKM_ECDSA; raw r‖s (chip/p256-sign.ts).
      return signDigestP256(task.secretKey, task.digest);
    case 'secp256k1-sign':
      return signDigestSecp256k1(task.secretKey, task.digest);
    case 'evm-recover':
      return checkerFor(task.publicKey).recover(task.digest, task.r, task.s);
    case 'public-keys':
      return task.keys.map(publicKeyOf);
    case 'collect':
      fullCollection()?.();
      return 0;
    case 'warm': {
      // noble computes secp256k1's tables for G at its first signature, and a key's own table
      // at its first recovery check: together 100-300 ms of the first EVM signature in a thread
      // (measured on a 2-core machine). What an EVM signature needs first, P-256 (PAdES) last.
      const digest = new Uint8Array(32).fill(1);
      const { r, s } = normaliseLowS(signDigestSecp256k1(WARM_KEY, digest));
      for (const secret of task.secp256k1Secrets) {
        try {
          checkerFor(secp256k1PublicKeyOf(secret)).recover(digest, r, s);
        } catch {
          // Another key's signature: the check says so, its table is made all the same.
        }
      }
      signDigestP256(WARM_KEY, digest);
      return 0;
    }
    case 'secp256k1-sign-recover': {
      // The same steps as signDigest + the EVM kind's recovery, in one worker round trip.
      const { r, s } = normaliseLowS(signDigestSecp256k1(task.secretKey, task.digest));
      return { r, s, yParity: checkerFor(task.publicKey).recover(task.digest, r, s) };
    }
  }
}
