import { appendFileSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RotatingFile } from '../../../src/store/rotating-file';
import { AppendJournal } from '../../../src/store/append-journal';
import { RENAME_RETRY_DELAYS_MS, writeFileAtomic, writeFileAtomicAsync } from '../../../src/store/atomic-file';
import { RequestStore, type RequestEntry } from '../../../src/store/request-store';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 7 §1: under Windows (wine 8 showed it) `serve` died at start with "EPERM: operation not
 * permitted, rename 'requests.jsonl.….tmp' -> 'requests.jsonl'". Linux cannot provoke Windows'
 * rename rules, so this file gives node:fs the two that matter, and drives the real call sites:
 *  - MoveFileEx refuses to replace a file that is open (here: any descriptor of this process,
 *    read from /proc/self/fd, points at the target);
 *  - a virus scanner or indexer holding a file makes the first attempts fail with EPERM.
 */
const win = vi.hoisted(() => ({
  /** Attempts each rename fails with EPERM before it may go through (a scanner holding the file). */
  scannerHolds: 0,
  attempts: new Map<string, number>(),
  /** Targets that were open in this process when a rename tried to replace them. */
  refusedOpenTargets: [] as string[],
  renames: 0,
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openHere = (path: string): boolean => {
    let target: string;
    try {
      target = fs.realpathSync(path);
    } catch {
      return false; // no file to replace
    }
    return fs.readdirSync('/proc/self/fd').some((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === target;
      } catch {
        return false; // the fd readdir itself used, closed meanwhile
      }
    });
  };
  const eperm = (from: string, to: string) =>
    Object.assign(new Error(`EPERM: operation not permitted, rename '${from}' -> '${to}'`), { code: 'EPERM', syscall: 'rename', path: from, dest: to });
  const renameSync = (from: string, to: string) => {
    win.renames += 1;
    const key = `${from}\0${to}`;
    const n = (win.attempts.get(key) ?? 0) + 1;
    win.attempts.set(key, n);
    if (n <= win.scannerHolds) throw eperm(from, to);
    if (openHere(to)) {
      win.refusedOpenTargets.push(to);
      throw eperm(from, to);
    }
    fs.renameSync(from, to);
  };
  return { ...fs, default: { ...fs, renameSync }, renameSync };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  const { renameSync } = await import('node:fs'); // the Windows one above
  const rename = async (from: string, to: string) => renameSync(from, to);
  return { ...fsp, default: { ...fsp, rename }, rename };
});

const entry = (id: string): RequestEntry => ({
  requestId: id,
  kind: 'blockchain',
  status: 'PENDING',
  credentialKey: 'cred',
  wrapperKey: 'wrp_x',
  createdAt: '2026-11-22T10:00:00.000Z',
  completedAt: null,
  params: { engine: 'chip', txHash: 'ab'.repeat(32), chainId: null },
});

describe('renames under Windows rules', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => {
    tmp = makeTmpHome();
    win.scannerHolds = 0;
    win.attempts.clear();
    win.refusedOpenTargets = [];
    win.renames = 0;
  });
  afterEach(() => tmp.cleanup());

  it('the emulation refuses to replace an open file, as Windows does', () => {
    const path = join(tmp.home, 'held.jsonl');
    const journal = new AppendJournal(path);
    appendFileSync(`${path}.tmp`, 'x');
    expect(() => renameSync(`${path}.tmp`, path)).toThrow(/EPERM/);
    expect(win.refusedOpenTargets).toEqual([path]);
    return journal.close();
  });

  it('a restarted service compacts requests.jsonl: the journal closes it before replacing it', async () => {
    const path = join(tmp.home, 'requests.jsonl');
    const first = new RequestStore(path);
    await first.create(entry('req_1'));
    await first.create(entry('req_2'));
    await first.markDone('req_1', '2026-11-22T10:00:01.000Z', { v: 27 });
    await first.close();

    const second = new RequestStore(path);
    await second.compact(); // what `serve` does at start
    expect(win.refusedOpenTargets).toEqual([]);
    await second.create(entry('req_3')); // lands in the new file, through the reopened descriptor
    await second.close();

    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string });
    expect(lines.map((l) => l.t)).toEqual(['c', 'c', 'c']);
    const third = new RequestStore(path);
    expect(third.get('req_1')).toMatchObject({ status: 'DONE', result: { v: 27 } });
    expect(third.get('req_2')).toMatchObject({ status: 'PENDING' });
    expect(third.get('req_3')).toMatchObject({ status: 'PENDING' });
    await third.close();
  });

  it('a journal rewrite that still fails leaves the old file and a working journal', async () => {
    const path = join(tmp.home, 'j.jsonl');
    const journal = new AppendJournal(path);
    await journal.append({ a: 1 });
    win.scannerHolds = 100; // held for longer than the retry bound
    await expect(journal.rewrite(() => [{ b: 2 }])).rejects.toThrow(/EPERM/);
    win.scannerHolds = 0;
    await journal.append({ c: 3 });
    await journal.close();
    expect(AppendJournal.readAll(path)).toEqual([{ a: 1 }, { c: 3 }]);
  });

  it('a compaction the journal starts by itself and that fails leaves the service running on the old file', async () => {
    const path = join(tmp.home, 'requests.jsonl');
    const store = new RequestStore(path);
    await store.create(entry('req_1'));
    win.scannerHolds = 100; // every rename fails, longer than the retry bound
    // Dead records beyond the threshold (3 per live entry + 2048): the next record starts a compaction.
    await Promise.all(Array.from({ length: 2100 }, (_, i) => store.recordAttempt('req_1', `t${i}`)));
    await store.markDone('req_1', 'done', { v: 27 });
    await vi.waitFor(() => expect(win.renames).toBeGreaterThan(RENAME_RETRY_DELAYS_MS.length), { timeout: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 50)); // its failure is handled
    // Not tried again at every record: only after as many lines more.
    const renames = win.renames;
    for (let i = 0; i < 5; i += 1) await store.recordAttempt('req_1', `later${i}`);
    expect(win.renames).toBe(renames);
    win.scannerHolds = 0;
    await store.create(entry('req_2'));
    await store.close();
    const again = new RequestStore(path);
    expect(again.get('req_1')).toMatchObject({ status: 'DONE', result: { v: 27 } });
    expect(again.get('req_2')).toMatchObject({ status: 'PENDING' });
    await again.close();
  });

  it('writeFileAtomic and writeFileAtomicAsync wait out a scanner holding the file', async () => {
    win.scannerHolds = 3;
    const path = join(tmp.home, 'wrappers.json');
    writeFileAtomic(path, '{"a":1}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n');
    await writeFileAtomicAsync(path, Buffer.from('{"a":2}\n'));
    expect(readFileSync(path, 'utf8')).toBe('{"a":2}\n');
    expect(win.renames).toBe(8);
  });

  it('log rotation waits out a scanner holding service.log', () => {
    win.scannerHolds = 2;
    const path = join(tmp.home, 'service.log');
    const f = new RotatingFile(path, 10, 2);
    for (const line of ['aaaaaaa\n', 'bbbbbbb\n', 'ccccccc\n']) f.append(line);
    expect(readFileSync(path, 'utf8')).toBe('ccccccc\n');
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('bbbbbbb\n');
    expect(readFileSync(`${path}.2`, 'utf8')).toBe('aaaaaaa\n');
    expect(win.refusedOpenTargets).toEqual([]);
  });
});
