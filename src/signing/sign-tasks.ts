import { constants, createPrivateKey, privateEncrypt, type KeyObject } from 'node:crypto';
import type { SoftSignTask, SoftSignTaskResult } from '../chip/types';
import { fullCollection } from '../config/full-collection';
import { publicKeyOf } from '../chip/soft-keys';
import { sha256DigestInfo } from '../der/keys';
import { signDigest, signDigestRecoverable } from '../ecdsa/sign-digest';
import { createRecoveryChecker, signDigestSecp256k1 } from '../evm';

/**
 * CPU-bound signing steps, run in worker threads (or inline when there are none). Plain data in
 * and out, so the same function serves both. Keys arrive per task; parsed RSA keys and the
 * recovery tables of PKCS#11 chips' EVM keys (evm/recovery.ts) are cached per worker.
 */
export type SignTask =
  | SoftSignTask
  | { op: 'evm-recover'; publicKey: Uint8Array; digest: Uint8Array; r: bigint; s: bigint }
  /** A thread started ahead of need (pool keepWarm): each of the software chip's signatures made once, so its code is compiled. */
  | { op: 'warm' }
  /** The service is idle after a burst: what the burst left in this thread is collected (WorkerPool.tidy). */
  | { op: 'collect' };

export type SignTaskResult = SoftSignTaskResult | number;


const rsaKeys = new Map<string, KeyObject>();
/** A secret key of no one's, for the warm-up's signatures (1 is a valid scalar on both curves). */
const WARM_KEY = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0));
/** Its secp256k1 public key: G itself, 04‖X‖Y (SEC 2 §2.4.1). */
const WARM_SECP256K1_POINT = new Uint8Array(
  Buffer.from('0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8', 'hex'),
);
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
      // Over the digest itself, like CKM_ECDSA; raw r‖s (ecdsa/sign-digest.ts).
      return signDigest('p256', task.secretKey, task.digest);
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
      // The software chip's signatures need no table of points (ecdsa/sign-digest.ts): one of each
      // compiles their code. What an EVM signature needs first, P-256 (PAdES) last.
      const digest = new Uint8Array(32).fill(1);
      signDigestRecoverable('secp256k1', WARM_KEY, digest, WARM_SECP256K1_POINT);
      signDigest('p256', WARM_KEY, digest);
      return 0;
    }
    case 'secp256k1-sign-recover': {
      // The same steps as signDigest + the EVM kind's recovery check, in one worker round trip,
      // the check made with the secret key in hand (ecdsa/sign-digest.ts signDigestRecoverable).
      const { r, s, recoveryId } = signDigestRecoverable('secp256k1', task.secretKey, task.digest, task.publicKey);
      return { r, s, yParity: recoveryId };
    }
  }
}
