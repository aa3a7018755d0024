// Bundled and run by test/bench/run.mjs (row `audit`), or alone:
//   npx esbuild test/bench/audit-start.ts --bundle --platform=node --format=cjs --outfile=/tmp/as.cjs && node /tmp/as.cjs
// The audit log's start over an audit.jsonl of 200,000 records of final requests (two days old)
// and 1,000 of the last hour, with the disk quota fed: the first start, with no mark (as a file
// written before marks existed: the whole file is read, as every start did before), then a start
// after the mark it left (the last 24 hours and what follows the mark). Prints one JSON line.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuditLog, type AuditRecord } from '../../src/requests/audit-log';
import { DiskQuota } from '../../src/requests/disk-quota';

const HOUR = 3_600_000;
const NEWEST = Date.parse('2026-11-23T12:00:00.000Z');

function record(i: number, ts: number): AuditRecord {
  return { ts: new Date(ts).toISOString(), request_id: `req_${String(i).padStart(16, '0')}`, wrapper_key: `wrp_${i % 7}`, credential_key: 'cred_bench', kind: 'blockchain', digest: i.toString(16).padStart(64, '0'), outcome: 'DONE' };
}

async function start(path: string): Promise<{ ms: number; remembered: number }> {
  const t = performance.now();
  const log = new AuditLog(path, { quota: new DiskQuota(1, () => 0), isOpen: () => false });
  const ms = performance.now() - t;
  const remembered = log.remembered;
  await log.close();
  return { ms, remembered };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'localsign-bench-audit-'));
  try {
    const path = join(dir, 'audit.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 199_000; i += 1) lines.push(JSON.stringify(record(i, NEWEST - 48 * HOUR + i * 100)) + '\n');
    for (let i = 0; i < 1_000; i += 1) lines.push(JSON.stringify(record(199_000 + i, NEWEST - HOUR + i)) + '\n');
    writeFileSync(path, lines.join(''), { mode: 0o600 });
    const first = await start(path);
    const marked = [];
    for (let r = 0; r < 5; r += 1) marked.push(await start(path));
    const round1 = (x: number) => Math.round(x * 10) / 10;
    console.log(
      JSON.stringify({
        records: 200_000,
        fileMiB: round1(statSync(path).size / 2 ** 20),
        firstStartMs: round1(first.ms),
        markedStartMsMedian: round1(marked.map((m) => m.ms).sort((a, b) => a - b)[2]!),
        remembered: [first.remembered, ...marked.map((m) => m.remembered)],
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
void main();
