import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RotatingFile } from '../../../src/store/rotating-file';
import { AppendJournal } from '../../../src/store/append-journal';
import { makeTmpHome } from '../../helpers/tmp-home';

describe('RotatingFile', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (tmp = makeTmpHome()));
  afterEach(() => tmp.cleanup());

  it('starts a torn last line (crash mid-append) on a line of its own', () => {
    const path = join(tmp.home, 'errors.jsonl');
    appendFileSync(path, '{"a":1}\n{"b":');
    new RotatingFile(path, 1024, 2).append('{"c":3}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":\n{"c":3}\n');
  });

  it('rotates at the size limit and keeps N files, newest first', () => {
    const path = join(tmp.home, 'service.log');
    const f = new RotatingFile(path, 10, 2);
    for (const line of ['aaaaaaa\n', 'bbbbbbb\n', 'ccccccc\n', 'ddddddd\n']) f.append(line);
    expect(f.files()).toEqual([path, `${path}.1`, `${path}.2`]);
    expect(readFileSync(path, 'utf8')).toBe('ddddddd\n');
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('ccccccc\n');
    expect(readFileSync(`${path}.2`, 'utf8')).toBe('bbbbbbb\n');
  });

  it('follows a rotation by another process within a second (its descriptor stays open between appends)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const path = join(tmp.home, 'service.log');
      const service = new RotatingFile(path, 20, 2);
      const cli = new RotatingFile(path, 20, 2); // another process writing the same log
      service.append('service 1\n');
      cli.append('cli 1 ....\n');
      cli.append('cli 2 ....\n'); // over 20 bytes: the CLI rotates the file
      expect(readFileSync(`${path}.1`, 'utf8')).toBe('service 1\ncli 1 ....\n');
      vi.setSystemTime(Date.now() + 1001);
      service.append('service 2\n');
      expect(readFileSync(path, 'utf8')).toBe('cli 2 ....\nservice 2\n');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('AppendJournal', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (tmp = makeTmpHome()));
  afterEach(() => tmp.cleanup());

  it('keeps the first record appended after a crash readable (the torn one alone is lost)', async () => {
    const path = join(tmp.home, 'requests.jsonl');
    appendFileSync(path, '{"a":1}\n{"torn":');
    const j = new AppendJournal(path);
    await j.append({ b: 2 });
    await j.close();
    expect(AppendJournal.readAll(path)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('refuses appends after close instead of writing to a closed descriptor', async () => {
    const j = new AppendJournal(join(tmp.home, 'j.jsonl'));
    await j.append({ a: 1 });
    await j.close();
    await expect(j.append({ b: 2 })).rejects.toThrow(/is closed/);
    expect(AppendJournal.readAll(join(tmp.home, 'j.jsonl'))).toEqual([{ a: 1 }]);
  });
});
