// Bundled and run by test/bench/run.mjs: the cryptography of one EVM signature on this machine,
// the floor under the EVM rows. secp256k1 signing (@noble, RFC 6979, low-s) and the check before
// DONE that the signature recovers to the credential's key (evm/recovery.ts, precomputed tables).
// Prints one JSON line: microseconds per operation, p50 of rounds.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createRecoveryChecker } from '../../src/evm/recovery';
import { perOp } from './_per-op';

const N = 500;
const secret = secp256k1.utils.randomSecretKey();
const checker = createRecoveryChecker(secp256k1.getPublicKey(secret, false));
const digests = Array.from({ length: N }, () => new Uint8Array(randomBytes(32)));
const signatures = digests.map((d) => secp256k1.Signature.fromBytes(secp256k1.sign(d, secret, { prehash: false }), 'compact'));

console.log(JSON.stringify({
  signUs: perOp(N, (i) => secp256k1.sign(digests[i]!, secret, { prehash: false })),
  recoverCheckUs: perOp(N, (i) => checker.recover(digests[i]!, signatures[i]!.r, signatures[i]!.s)),
}));
