import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppendJournal, REWRITE_SLICE } from '../../../src/store/append-journal';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Compaction off the event loop: a rewrite of the request journal (up to 10,000 entries) must not
 * hold the event loop for the whole file, must keep what is appended meanwhile, and must leave
 * under the journal's name, at every moment, one whole file: the old or the new.
 */
const N = 10_000;

/** Runs `each` at every turn of the event loop until `until` settles; returns how many turns ran. */
async function everyTurn(until: Promise<unknown>, each: () => void): Promise<number> {
  let done = false;
  const settled = until.then(
    () => (done = true),
    () => (done = true),
  );
  let turns = 0;
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    if (done) break;
    turns += 1;
    each();
  }
  await settled;
  return turns;
}

describe('AppendJournal.rewrite', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  let path: string;
  beforeEach(() => {
    tmp = makeTmpHome();
    path = join(tmp.home, 'requests.jsonl');
  });
  afterEach(() => tmp.cleanup());

  it(`serialises at most ${REWRITE_SLICE} records per turn of the event loop`, async () => {
    const journal = new AppendJournal(path);
    await journal.append({ old: true });
    let serialised = 0;
    let most = 0;
    // JSON.stringify calls toJSON: the count of records serialised since the last turn.
    const items = Array.from({ length: N }, (_, n) => ({ toJSON: () => (serialised += 1, { n }) }));
    const rewrite = journal.rewrite(() => items);
    const turns = await everyTurn(rewrite, () => {
      most = Math.max(most, serialised);
      serialised = 0;
    });
    most = Math.max(most, serialised);
    await journal.close();
    expect(most).toBeLessThanOrEqual(REWRITE_SLICE);
    expect(turns).toBeGreaterThanOrEqual(N / REWRITE_SLICE);
    expect(AppendJournal.readAll(path)).toEqual(Array.from({ length: N }, (_, n) => ({ n })));
  });

  it('answers appends made while it copies before it ends, and carries them into the new file in order', async () => {
    const journal = new AppendJournal(path);
    await journal.append({ old: true });
    const answered: boolean[] = [];
    let ended = false;
    let next = 0;
    const made: Promise<unknown>[] = [];
    const rewrite = journal.rewrite(() => Array.from({ length: N }, (_, n) => ({ n }))).then(() => (ended = true));
    await everyTurn(rewrite, () => {
      const n = (next += 1);
      made.push(journal.append({ appended: n }).then(() => answered.push(!ended)));
    });
    await Promise.all(made);
    expect(next).toBeGreaterThan(0);
    // Before, a rewrite ran in one synchronous step: nothing could be appended, let alone answered, until it ended.
    expect(answered.filter(Boolean).length).toBeGreaterThan(0);
    await journal.append({ after: true });
    const lineCount = journal.lineCount;
    await journal.close();
    const records = AppendJournal.readAll(path);
    expect(records).toEqual([...Array.from({ length: N }, (_, n) => ({ n })), ...Array.from({ length: next }, (_, i) => ({ appended: i + 1 })), { after: true }]);
    expect(lineCount).toBe(records.length);
  });

  it('leaves under its name, at every turn, a whole file: the old one with what was appended, or the new one', async () => {
    const journal = new AppendJournal(path);
    for (let n = 0; n < 3; n += 1) await journal.append({ old: n });
    const old = [{ old: 0 }, { old: 1 }, { old: 2 }];
    const snapshot = Array.from({ length: N }, (_, n) => ({ n }));
    /** Records appended meanwhile, in order, and how many of them were answered (durable). */
    const appended: unknown[] = [];
    let durable = 0;
    const seen = new Set<string>();
    const rewrite = journal.rewrite(() => snapshot);
    await everyTurn(rewrite, () => {
      // What a crash now would leave: the file under the name, as it is. It may hold a record
      // not answered yet, never lack one that was.
      const records = AppendJournal.readAll(path);
      const isOld = JSON.stringify(records[0]) === '{"old":0}';
      const [base, tail] = isOld ? [old, records.slice(3)] : [snapshot, records.slice(N)];
      expect(records.slice(0, base.length)).toEqual(base);
      expect(tail).toEqual(appended.slice(0, tail.length));
      expect(tail.length).toBeGreaterThanOrEqual(durable);
      seen.add(isOld ? 'old' : 'new');
      const record = { appended: appended.length };
      appended.push(record);
      void journal.append(record).then(() => (durable += 1));
    });
    await journal.close();
    expect(seen.has('old')).toBe(true);
    expect(AppendJournal.readAll(path)).toEqual([...snapshot, ...appended]);
    expect(readdirSync(tmp.home)).toEqual(['requests.jsonl']);
  });

  it('that fails while copying leaves the old file, no temp file, and a journal that works', async () => {
    const journal = new AppendJournal(path);
    await journal.append({ a: 1 });
    const items = Array.from({ length: N }, (_, n) => n);
    const failed = journal.rewrite(
      () => items,
      (n) => {
        if (n === N - 1) throw new Error('cannot convert the last entry');
        return { n };
      },
    );
    const meanwhile = journal.append({ b: 2 });
    await expect(failed).rejects.toThrow('cannot convert the last entry');
    await meanwhile;
    await journal.append({ c: 3 });
    await journal.close();
    expect(AppendJournal.readAll(path)).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
    expect(readdirSync(tmp.home)).toEqual(['requests.jsonl']);
  });

  it('is waited for by close, and refuses a second rewrite while one runs', async () => {
    const journal = new AppendJournal(path);
    const first = journal.rewrite(() => Array.from({ length: N }, (_, n) => ({ n })));
    await expect(journal.rewrite(() => [])).rejects.toThrow(/already being rewritten/);
    await journal.close();
    await first;
    expect(AppendJournal.readAll(path)).toHaveLength(N);
  });
});

describe('AppendJournal.append', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (tmp = makeTmpHome()));
  afterEach(() => tmp.cleanup());

  it('resolves with the offset past its line, in one batch and across batches', async () => {
    const path = join(tmp.home, 'audit.jsonl');
    const journal = new AppendJournal(path);
    const ends = await Promise.all([journal.append({ a: 'é' }), journal.append({ b: 22 }), journal.append({ c: 333 })]);
    ends.push(await journal.append({ d: 4 }));
    await journal.close();
    const text = readFileSync(path);
    const lineEnds: number[] = [];
    text.forEach((byte, i) => byte === 0x0a && lineEnds.push(i + 1));
    expect(ends).toEqual(lineEnds);
    expect(ends.at(-1)).toBe(statSync(path).size);
  });
});
