import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileIfExists, readFileIfExistsAsync } from '../../../src/store/atomic-file';
import { AppendJournal } from '../../../src/store/append-journal';
import { RotatingFile } from '../../../src/store/rotating-file';
import { tempDir } from '../../helpers/temp-dir';

/** Issue 10, hardening: store files are never opened through a symbolic link. */
let dir: string;
let victim: string;
let link: string;
beforeEach(() => {
  dir = tempDir('localsign-harden-nofollow-');
  victim = join(dir, 'elsewhere.txt');
  writeFileSync(victim, 'not a store file\n');
  link = join(dir, 'store.jsonl');
  symlinkSync(victim, link);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const refused = () => `${link} is a symbolic link; localsign does not follow links in its config dir (remove the link and put the real file there)`;

describe('store files behind a symbolic link', () => {
  it('are not read', async () => {
    expect(() => readFileIfExists(link)).toThrow(refused());
    await expect(readFileIfExistsAsync(link)).rejects.toThrow(refused());
    expect(readFileIfExists(join(dir, 'missing'))).toBeNull();
    writeFileSync(join(dir, 'real'), 'x');
    expect(readFileIfExists(join(dir, 'real'))?.toString()).toBe('x');
  });

  it('are not appended to (journal, rotating log)', () => {
    expect(() => new AppendJournal(link)).toThrow(refused());
    expect(() => new RotatingFile(link, 1 << 20, 2).append('x\n')).toThrow(refused());
    expect(readFileSync(victim, 'utf8')).toBe('not a store file\n');
  });
});
