/**
 * JavaScript source, to embed in a script run in another process or thread: `allocationBurst(rounds)`
 * allocates as a burst of tasks does (short-lived objects, a tenth of each round kept until the
 * end), which grows V8's young generation to its limit and fills the old one; then lets all of it
 * go. Read afterwards with `v8.getHeapSpaceStatistics()`.
 */
export const ALLOCATION_BURST = `
function allocationBurst(rounds) {
  let kept = [];
  for (let round = 0; round < rounds; round += 1) {
    const made = [];
    for (let i = 0; i < 200000; i += 1) made.push({ i, s: 'x' + i });
    kept.push(made.slice(0, 20000));
  }
  kept = null;
}
`;
