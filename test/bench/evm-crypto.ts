// Bundled and run by test/bench/run.mjs: the cryptography of one EVM signature on this machine,
// the floor under the EVM rows. The software chip's signature with its recovery check before DONE
// (ecdsa/sign-digest.ts signDigestRecoverable: RFC 6979, k·G by OpenSSL, low-s, the check made
// with the secret key), against the path it replaced: noble's signature, then the check through
// noble's precomputed tables (evm/recovery.ts, still the check for a PKCS#11 chip's signatures).
// Also the first signature in a fresh process, where noble first builds its tables.
// Prints one JSON line: microseconds per operation, p50 of rounds.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { publicPointOf, signDigestRecoverable } from '../../src/ecdsa/sign-digest';
import { createRecoveryChecker } from '../../src/evm/recovery';
import { perOp } from './_per-op';

const N = 500;
const secret = secp256k1.utils.randomSecretKey();
const publicKey = publicPointOf('secp256k1', secret);
const digests = Array.from({ length: N }, () => new Uint8Array(randomBytes(32)));

const firstStarted = performance.now();
signDigestRecoverable('secp256k1', secret, digests[0]!, publicKey);
const firstOursUs = (performance.now() - firstStarted) * 1000;
const nobleStarted = performance.now();
const checker = createRecoveryChecker(publicKey);
const first = secp256k1.Signature.fromBytes(secp256k1.sign(digests[0]!, secret, { prehash: false }), 'compact');
checker.recover(digests[0]!, first.r, first.s);
const firstNobleUs = (performance.now() - nobleStarted) * 1000;

const signatures = digests.map((d) => secp256k1.Signature.fromBytes(secp256k1.sign(d, secret, { prehash: false }), 'compact'));

console.log(JSON.stringify({
  oursUs: perOp(N, (i) => signDigestRecoverable('secp256k1', secret, digests[i]!, publicKey)),
  signUs: perOp(N, (i) => secp256k1.sign(digests[i]!, secret, { prehash: false })),
  recoverCheckUs: perOp(N, (i) => checker.recover(digests[i]!, signatures[i]!.r, signatures[i]!.s)),
  firstOursUs,
  firstNobleUs,
}));
