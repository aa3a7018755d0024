import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditLog, MARK_EVERY_BYTES, markPathOf, type AuditRecord } from '../../../src/requests/audit-log';
import { DiskQuota } from '../../../src/requests/disk-quota';
import { tempDir } from '../../helpers/temp-dir';

/** Lines of audit.jsonl the log reads at start: the real reader, counted. */
const reads = vi.hoisted(() => ({ lines: 0 }));
vi.mock('../../../src/store/tail-reader', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/store/tail-reader')>();
  return {
    ...real,
    readLinesBackward: (path: string, visit: (line: string, start: number, end: number) => boolean) =>
      real.readLinesBackward(path, (line, start, end) => ((reads.lines += 1), visit(line, start, end))),
  };
});

/** audit.jsonl is never compacted, so a torn last line from a crash must not swallow the next record. */

const record = (id: string): AuditRecord => ({
  ts: '2026-11-22T10:00:00.000Z',
  request_id: id,
  wrapper_key: 'wrp_x',
  credential_key: 'cred',
  kind: 'blockchain',
  digest: 'ab'.repeat(32),
  outcome: 'DONE',
});

const parsedLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as AuditRecord];
      } catch {
        return [];
      }
    });

describe('AuditLog', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir('localsign-audit-');
    path = join(dir, 'audit.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('after a torn last line (crash mid-write) the next record is still a line of its own', async () => {
    writeFileSync(path, JSON.stringify(record('req_before')) + '\n{"ts":"2026-11-22T10:00:01.000Z","request_id":"req_to', { mode: 0o600 });
    const log = new AuditLog(path);
    await log.append(record('req_after'));
    await log.close();
    expect(parsedLines(path).map((r) => r.request_id)).toEqual(['req_before', 'req_after']);
  });

  it('leaves a sound file as it is, and starts a missing one', async () => {
    writeFileSync(path, JSON.stringify(record('req_1')) + '\n', { mode: 0o600 });
    const log = new AuditLog(path);
    await log.append(record('req_2'));
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe(JSON.stringify(record('req_1')) + '\n' + JSON.stringify(record('req_2')) + '\n');
    const fresh = new AuditLog(join(dir, 'new.jsonl'));
    await fresh.append(record('req_3'));
    await fresh.close();
    expect(readFileSync(join(dir, 'new.jsonl'), 'utf8')).toBe(JSON.stringify(record('req_3')) + '\n');
  });
});

describe('AuditLog: exactly one record per request and outcome (issue 10)', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir('localsign-harden-audit-');
    path = join(dir, 'audit.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('skips a DONE already in the file (a crash before the DONE was durable), keeps other outcomes', async () => {
    writeFileSync(path, JSON.stringify(record('req_crashed')) + '\n', { mode: 0o600 });
    const log = new AuditLog(path);
    await log.append({ ...record('req_crashed'), digest: 'cd'.repeat(32) }); // signed again after the restart
    await log.append({ ...record('req_crashed'), outcome: 'ERROR', digest: null });
    await log.append(record('req_new'));
    await log.append(record('req_new'));
    await log.close();
    expect(parsedLines(path).map((r) => `${r.request_id} ${r.outcome} ${r.digest?.slice(0, 2) ?? '-'}`)).toEqual(['req_crashed DONE ab', 'req_crashed ERROR -', 'req_new DONE ab']);
  });

  it('a second log over the same file knows what the first wrote', async () => {
    const first = new AuditLog(path);
    await first.append(record('req_a'));
    await first.close();
    const second = new AuditLog(path);
    await second.append(record('req_a'));
    await second.close();
    expect(parsedLines(path)).toHaveLength(1);
  });
});

describe('AuditLog: memory and start-up bounded by what can still be written again', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir('localsign-audit-bounded-');
    path = join(dir, 'audit.jsonl');
    reads.lines = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const HOUR = 3_600_000;
  const NEWEST = Date.parse('2026-11-23T12:00:00.000Z');
  const at = (ms: number) => new Date(ms).toISOString();
  const rec = (id: string, outcome: AuditRecord['outcome'], ts = at(NEWEST)): AuditRecord => ({ ...record(id), ts, outcome });
  const lineBytes = (r: AuditRecord) => JSON.stringify(r).length + 1;
  const open = (...ids: string[]) => {
    const set = new Set(ids);
    return { set, isOpen: (id: string) => set.has(id) };
  };

  it('a start over 200,000 records of final requests keeps only the open requests\' outcomes, and after a mark reads only what it must', async () => {
    // Two days of records of final requests, then 1,000 in the last hour; among them the outcomes
    // of two requests still PENDING in the request journal, one at the very start.
    const records: AuditRecord[] = [];
    for (let i = 0; i < 199_000; i += 1) records.push(rec(`req_final_${i}`, 'DONE', at(NEWEST - 48 * HOUR + i)));
    for (let i = 0; i < 1_000; i += 1) records.push(rec(`req_recent_${i}`, 'DONE', at(NEWEST - HOUR + i)));
    records[10] = rec('req_open_a', 'DONE', records[10]!.ts);
    records[150_000] = rec('req_open_b', 'ERROR', records[150_000]!.ts);
    writeFileSync(path, records.map((r) => JSON.stringify(r) + '\n').join(''), { mode: 0o600 });
    const { isOpen } = open('req_open_a', 'req_open_b', 'req_open_c');
    const dayBytes = records.slice(-1_000).reduce((sum, r) => sum + lineBytes(r), 0);

    // No mark yet (a file written before marks existed): the whole file is read, once.
    const quota = new DiskQuota(1, () => 0);
    const first = new AuditLog(path, { quota, isOpen });
    expect(reads.lines).toBe(200_000);
    expect(first.remembered).toBe(2);
    expect(quota.usedBy('wrp_x', NEWEST)).toBe(dayBytes);
    const size = statSync(path).size;
    await first.append(rec('req_open_a', 'DONE')); // signed again after a crash: skipped
    await first.append(rec('req_open_b', 'ERROR'));
    expect(statSync(path).size).toBe(size);
    await first.append(rec('req_open_b', 'DONE'));
    await first.append(rec('req_open_c', 'DONE'));
    await first.close();

    // After the mark: the records the quota needs (the last 24 hours, read from the end), the
    // one that ends the read, and nothing else; the open requests' outcomes still known.
    reads.lines = 0;
    const again = new DiskQuota(1, () => 0);
    const second = new AuditLog(path, { quota: again, isOpen });
    expect(reads.lines).toBe(2 + 1_000 + 1);
    expect(second.remembered).toBe(4);
    expect(again.usedBy('wrp_x', NEWEST)).toBe(dayBytes + 2 * lineBytes(rec('req_open_b', 'DONE')));
    const size2 = statSync(path).size;
    for (const [id, outcome] of [['req_open_a', 'DONE'], ['req_open_b', 'ERROR'], ['req_open_b', 'DONE'], ['req_open_c', 'DONE']] as const) await second.append(rec(id, outcome));
    expect(statSync(path).size).toBe(size2);
    await second.close();

    // Without a quota, nothing before the mark is read at all.
    reads.lines = 0;
    const third = new AuditLog(path, { isOpen });
    expect(reads.lines).toBe(1);
    expect(third.remembered).toBe(4);
    await third.close();
  });

  it('drops the outcomes of requests that became final at each mark: memory holds about a mark\'s worth', async () => {
    const { set, isOpen } = open();
    const log = new AuditLog(path, { isOpen });
    const perMark = Math.ceil(MARK_EVERY_BYTES / lineBytes(rec('req_000000', 'DONE')));
    const batch = 500;
    let most = 0;
    for (let b = 0; b < 24; b += 1) {
      const ids = Array.from({ length: batch }, (_, i) => `req_${String(b * batch + i).padStart(6, '0')}`);
      for (const id of ids) set.add(id);
      await Promise.all(ids.map((id) => log.append(rec(id, 'DONE'))));
      for (const id of ids) set.delete(id); // DONE in the request journal
      most = Math.max(most, log.remembered);
    }
    expect(24 * batch).toBeGreaterThan(2 * perMark);
    expect(most).toBeLessThanOrEqual(perMark + batch);
    set.add('req_still_open');
    await log.append(rec('req_still_open', 'DONE'));
    await log.close();
    expect(log.remembered).toBe(1);
  });

  it('finds after a crash the outcome of a request written before the last mark', async () => {
    const { set, isOpen } = open('req_crashed');
    const log = new AuditLog(path, { isOpen });
    await log.append(rec('req_crashed', 'DONE'));
    const crashedEnd = statSync(path).size;
    // Other requests' records, enough for a mark; req_crashed stays PENDING (the crash comes
    // before its DONE).
    for (let b = 0; b < 12; b += 1) {
      const ids = Array.from({ length: 500 }, (_, i) => `req_${b}_${i}`);
      for (const id of ids) set.add(id);
      await Promise.all(ids.map((id) => log.append(rec(id, 'DONE'))));
      for (const id of ids) set.delete(id);
    }
    await vi.waitFor(() => expect(existsSync(markPathOf(path))).toBe(true));
    const mark = JSON.parse(readFileSync(markPathOf(path), 'utf8')) as { offset: number; open: string[][] };
    expect(mark.offset).toBeGreaterThan(crashedEnd);
    // req_crashed's outcome, and those of the requests whose DONE was on its way when it was written.
    expect(mark.open).toContainEqual(['req_crashed', 'DONE']);
    expect(mark.open.length).toBeLessThanOrEqual(500);
    // The crash: `log` is never closed. The restart signs req_crashed again.
    reads.lines = 0;
    const restarted = new AuditLog(path, { isOpen });
    // The records since the mark, and the one that ends the read.
    const sinceMark = readFileSync(path).subarray(mark.offset).toString('utf8').split('\n').length - 1;
    expect(reads.lines).toBe(sinceMark + 1);
    expect(sinceMark).toBeLessThan(6000 - 4000);
    const size = statSync(path).size;
    await restarted.append(rec('req_crashed', 'DONE'));
    expect(statSync(path).size).toBe(size);
    await restarted.close();
  });

  it('does not trust a mark that does not match the file: the whole file is read', async () => {
    const { isOpen } = open('req_a', 'req_b');
    const first = new AuditLog(path, { isOpen });
    await first.append(rec('req_a', 'DONE'));
    await first.append(rec('req_other', 'DONE'));
    await first.close();
    expect(existsSync(markPathOf(path))).toBe(true);
    // Another file under the name (restored from elsewhere) that ends as the first did: req_a's
    // record is not in it, req_b's is.
    writeFileSync(path, [rec('req_b', 'DONE'), rec('req_other', 'DONE')].map((r) => JSON.stringify(r) + '\n').join(''));
    reads.lines = 0;
    const second = new AuditLog(path, { isOpen });
    expect(reads.lines).toBe(2);
    const size = statSync(path).size;
    await second.append(rec('req_b', 'DONE'));
    expect(statSync(path).size).toBe(size);
    await second.append(rec('req_a', 'DONE'));
    expect(statSync(path).size).toBeGreaterThan(size);
    await second.close();
  });
});
