// Bundled and run by test/bench/run.mjs (row `journal`), or alone:
//   npx esbuild test/bench/journal-compaction.ts --bundle --platform=node --format=cjs --outfile=/tmp/jc.cjs && node /tmp/jc.cjs
// The request journal's compaction with 10,000 live entries (the retention cap), half PAdES and
// half EVM, all DONE, on this machine's disk: how long the event loop is blocked at most while it
// runs, with an append every 2 ms meanwhile (the longest gap between ticks of a 1 ms timer), and
// how long it takes. Prints one JSON line.
// Under load from other processes the gaps include the time the process was not scheduled.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RequestStore, type RequestEntry } from '../../src/store/request-store';

const ENTRIES = Number(process.argv[2] ?? 10_000);
const ROUNDS = 5;

function entry(i: number): RequestEntry {
  const base = { requestId: `req_${String(i).padStart(16, '0')}`, status: 'PENDING' as const, credentialKey: 'cred_bench', wrapperKey: `wrp_${i % 7}`, createdAt: new Date(1_790_000_000_000 + i).toISOString(), completedAt: null };
  return i % 2 === 0
    ? { ...base, kind: 'pades', params: { engine: 'chip', designKey: 'default', variables: { signer: 'A. Signer', department: 'Finance' }, reason: 'Approved', location: 'Zurich', signerName: 'A. Signer', level: 'B-B' } }
    : { ...base, kind: 'blockchain', params: { engine: 'chip', txHash: i.toString(16).padStart(64, '0'), chainId: 1 } };
}
const resultOf = (e: RequestEntry): Record<string, unknown> =>
  e.kind === 'pades'
    ? { bytes: 48_213, level: 'B-B', warnings: [] }
    : { r: '0x' + 'a1'.repeat(32), s: '0x' + 'b2'.repeat(32), v: 27, y_parity: 0, address: '0x' + 'c3'.repeat(20), chain_id: 1 };

async function fill(store: RequestStore, n: number): Promise<void> {
  const entries = Array.from({ length: n }, (_, i) => entry(i));
  // Group commit: a few batches, not 10,000 fsyncs.
  for (let i = 0; i < n; i += 1000) await Promise.all(entries.slice(i, i + 1000).map((e) => store.create(e)));
  for (let i = 0; i < n; i += 1000) await Promise.all(entries.slice(i, i + 1000).map((e) => store.markDone(e.requestId, '2026-11-22T10:00:01.000Z', resultOf(e))));
}

async function round(dir: string, r: number): Promise<{ maxBlockMs: number; compactionMs: number; bytes: number }> {
  const path = join(dir, `requests-${r}.jsonl`);
  const store = new RequestStore(path);
  await fill(store, ENTRIES);
  let next = ENTRIES + r * 100_000;
  const timer = setInterval(() => void store.create(entry((next += 1))), 2);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The longest gap between two ticks of a 1 ms timer is the longest block. (Node 20's
  // monitorEventLoopDelay missed most of them here: 1.5 ms in its histogram, 130 ms between ticks.)
  let last = performance.now();
  let gap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  await store.compact();
  const t1 = performance.now();
  // A block at the very end is seen at the next tick.
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(ticker);
  clearInterval(timer);
  await store.drain();
  await store.close();
  return { maxBlockMs: gap, compactionMs: t1 - t0, bytes: statSync(path).size };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'localsign-bench-journal-'));
  try {
    const rounds = [];
    for (let r = 0; r < ROUNDS; r += 1) rounds.push(await round(dir, r));
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const round1 = (x: number) => Math.round(x * 10) / 10;
    console.log(
      JSON.stringify({
        entries: ENTRIES,
        fileBytes: rounds[0]!.bytes,
        maxBlockMs: rounds.map((x) => round1(x.maxBlockMs)),
        maxBlockMsMedian: round1(med(rounds.map((x) => x.maxBlockMs))),
        compactionMsMedian: round1(med(rounds.map((x) => x.compactionMs))),
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
void main();
