// Bundled and run by test/bench/run.mjs: the software chip's P-256 signature over a digest (its
// PAdES signer, chip/p256-sign.ts) against noble's, which it replaced, on this machine. Prints
// one JSON line: microseconds per signature, p50 of rounds.
import { randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { signDigestP256 } from '../../src/chip/p256-sign';

const N = 300;
const secret = p256.utils.randomSecretKey();
const digests = Array.from({ length: N }, () => new Uint8Array(randomBytes(32)));

function perOp(f: (i: number) => unknown): number {
  for (let i = 0; i < 100; i++) f(i); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < N; i++) f(i);
    rounds.push(((performance.now() - t) / N) * 1000);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

console.log(JSON.stringify({
  oursUs: perOp((i) => signDigestP256(secret, digests[i]!)),
  nobleUs: perOp((i) => p256.sign(digests[i]!, secret, { prehash: false, lowS: false, format: 'compact' })),
}));
