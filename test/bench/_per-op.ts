/**
 * Microseconds per call of `f(i)` over `n` calls (i from 0), the median of 5 rounds after 100
 * warm-up calls: the bench's micro rows (evm-crypto.ts, ecdsa-p256.ts).
 */
export function perOp(n: number, f: (i: number) => unknown): number {
  for (let i = 0; i < 100; i++) f(i % n); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) f(i);
    rounds.push(((performance.now() - t) / n) * 1000);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}
