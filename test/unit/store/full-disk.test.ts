import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/domain/errors';
import { AppendJournal } from '../../../src/store/append-journal';
import { writeFileAtomic } from '../../../src/store/atomic-file';
import { RotatingFile } from '../../../src/store/rotating-file';
import { fillUp, tryMountTmpfs, whyNoMount, type ScratchMount } from '../../helpers/scratch-mount';

/**
 * Issue 10, resilience: a write the disk cuts short leaves no torn record and no temp file. The
 * disk is a 1 MiB tmpfs this test mounts (root, as in CI).
 */
const noTmpfs = whyNoMount(() => tryMountTmpfs(1024 * 1024));
if (noTmpfs) console.warn(`full-disk store test skipped: ${noTmpfs}`);

describe.skipIf(noTmpfs !== null)('store writes on a full disk', () => {
  let mount: ScratchMount;
  beforeAll(() => {
    mount = tryMountTmpfs(1024 * 1024) as ScratchMount;
  });
  afterAll(() => mount?.cleanup());
  const big = (n: number) => ({ n, pad: 'x'.repeat(6000) }); // more than a page: cannot fit in a page's tail

  it('a journal batch the disk refuses is cut back: the next record is whole, nothing torn', async () => {
    const path = join(mount.dir, 'journal.jsonl');
    const journal = new AppendJournal(path);
    await journal.append({ n: 1 });
    const filler = fillUp(mount.dir);
    const refused = await journal.append(big(2)).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageError);
    expect((refused as Error).message).toBe(`cannot write ${path}: its disk has no space left (ENOSPC); the write was undone, try again once the disk can be written`);
    rmSync(filler);
    await journal.append({ n: 3 });
    await journal.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('a rotating log line the disk refuses leaves no fragment', () => {
    const path = join(mount.dir, 'errors.jsonl');
    const log = new RotatingFile(path, 1 << 20, 2);
    log.append('{"a":1}\n');
    const filler = fillUp(mount.dir);
    expect(() => log.append(JSON.stringify(big(2)) + '\n')).toThrow(StorageError);
    rmSync(filler);
    log.append('{"a":3}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"a":3}\n');
  });

  it('an atomic write the disk refuses keeps the old file whole and leaves no temp file', () => {
    const path = join(mount.dir, 'wrappers.json');
    writeFileSync(path, '{"old":true}\n', { mode: 0o600 });
    const filler = fillUp(mount.dir);
    expect(() => writeFileAtomic(path, JSON.stringify(big(1)))).toThrow(StorageError);
    expect(readFileSync(path, 'utf8')).toBe('{"old":true}\n');
    expect(readdirSync(mount.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(filler);
    expect(existsSync(filler)).toBe(false);
  });
});
