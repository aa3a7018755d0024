import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RENAME_RETRY_DELAYS_MS, renameWithRetry, renameWithRetrySync } from '../../../src/store/atomic-file';
import { makeTmpHome } from '../../helpers/tmp-home';

/** The error Node raises when Windows refuses a rename (libuv maps ERROR_ACCESS_DENIED to EPERM). */
const refused = (code: string, from: string, to: string) =>
  Object.assign(new Error(`${code}: operation not permitted, rename '${from}' -> '${to}'`), { code, syscall: 'rename', path: from, dest: to });

describe('renameWithRetrySync / renameWithRetry (issue 7 §1: Windows renames fail while a file is briefly held)', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  let from: string;
  let to: string;
  beforeEach(() => {
    tmp = makeTmpHome();
    from = join(tmp.home, 'a.tmp');
    to = join(tmp.home, 'a.json');
    writeFileSync(from, 'new');
    writeFileSync(to, 'old');
  });
  afterEach(() => tmp.cleanup());

  it('spreads its retries over about one second in all', () => {
    expect(RENAME_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(1000);
  });

  for (const code of ['EPERM', 'EACCES', 'EBUSY']) {
    it(`retries on ${code} until the rename goes through`, () => {
      const attempts: string[] = [];
      const slept: number[] = [];
      renameWithRetrySync(from, to, {
        rename: (a, b) => {
          attempts.push(b);
          if (attempts.length <= 3) throw refused(code, a, b);
          renameSync(a, b);
        },
        sleep: (ms) => slept.push(ms),
      });
      expect(attempts).toEqual([to, to, to, to]);
      expect(slept).toEqual([10, 20, 40]);
      expect(readFileSync(to, 'utf8')).toBe('new');
      expect(existsSync(from)).toBe(false);
    });
  }

  it('gives up after the last delay with the rename error itself, leaving both files as they were', () => {
    const errors: Error[] = [];
    const slept: number[] = [];
    let thrown: unknown;
    try {
      renameWithRetrySync(from, to, {
        rename: (a, b) => {
          errors.push(refused('EPERM', a, b));
          throw errors.at(-1);
        },
        sleep: (ms) => slept.push(ms),
      });
    } catch (error) {
      thrown = error;
    }
    expect(errors).toHaveLength(RENAME_RETRY_DELAYS_MS.length + 1);
    expect(thrown).toBe(errors.at(-1));
    expect((thrown as NodeJS.ErrnoException).code).toBe('EPERM');
    expect(slept).toEqual([...RENAME_RETRY_DELAYS_MS]);
    expect(readFileSync(to, 'utf8')).toBe('old');
    expect(readFileSync(from, 'utf8')).toBe('new');
  });

  it('does not retry an error that waiting cannot cure (ENOENT)', () => {
    const slept: number[] = [];
    let calls = 0;
    expect(() =>
      renameWithRetrySync(join(tmp.home, 'missing'), to, {
        rename: (a, b) => {
          calls += 1;
          renameSync(a, b);
        },
        sleep: (ms) => slept.push(ms),
      }),
    ).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(calls).toBe(1);
    expect(slept).toEqual([]);
  });

  it('async: retries EBUSY, then renames; gives up after the bound with the original error', async () => {
    const slept: number[] = [];
    let calls = 0;
    await renameWithRetry(from, to, {
      rename: async (a, b) => {
        calls += 1;
        if (calls <= 2) throw refused('EBUSY', a, b);
        await rename(a, b);
      },
      sleep: async (ms) => void slept.push(ms),
    });
    expect(calls).toBe(3);
    expect(slept).toEqual([10, 20]);
    expect(readFileSync(to, 'utf8')).toBe('new');

    const always = refused('EACCES', from, to);
    calls = 0;
    await expect(
      renameWithRetry(from, to, {
        rename: async () => {
          calls += 1;
          throw always;
        },
        sleep: async () => undefined,
      }),
    ).rejects.toBe(always);
    expect(calls).toBe(RENAME_RETRY_DELAYS_MS.length + 1);
  });
});
