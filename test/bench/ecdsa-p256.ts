// Bundled and run by test/bench/run.mjs: the software chip's P-256 signature over a digest (its
// PAdES signer, ecdsa/sign-digest.ts) against noble's, which it replaced, on this machine. Prints
// one JSON line: microseconds per signature, p50 of rounds.
import { randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { signDigest } from '../../src/ecdsa/sign-digest';
import { perOp } from './_per-op';

const N = 300;
const secret = p256.utils.randomSecretKey();
const digests = Array.from({ length: N }, () => new Uint8Array(randomBytes(32)));

console.log(JSON.stringify({
  oursUs: perOp(N, (i) => signDigest('p256', secret, digests[i]!)),
  nobleUs: perOp(N, (i) => p256.sign(digests[i]!, secret, { prehash: false, lowS: false, format: 'compact' })),
}));
