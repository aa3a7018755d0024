import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStarter } from '../../../src/workers/handles';
import { FILE_MIN_BYTES, fromFiles, loadFilesSync, removePartials, saveFilesSync, toFiles } from '../../../src/workers/large-bytes';
import { tempDir } from '../../helpers/temp-dir';

describe('large documents through files (PDF workers, issue 15)', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('localsign-xfer-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const big = (fill: number) => new Uint8Array(FILE_MIN_BYTES).fill(fill);
  // Byte for byte, natively (a deep equality of 4 MiB element by element takes seconds).
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

  it('a task goes out with its large arrays in private files and comes back whole; small values and dates stay inline', async () => {
    const at = new Date('2026-11-25T10:00:00Z');
    const task = { op: 'prepare', input: { pdf: big(7), certificateChain: [new Uint8Array([1, 2, 3])], signingTime: at, reason: null } };
    const { value, files } = await toFiles(task, dir);
    expect(files).toHaveLength(1);
    expect(value.input.pdf).toEqual({ $file: files[0], length: FILE_MIN_BYTES });
    expect(value.input.certificateChain[0]).toEqual(new Uint8Array([1, 2, 3]));
    expect(value.input.signingTime).toBe(at);
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
    // The worker reads the task and writes its answer the same way; the service reads and removes it.
    const seen = loadFilesSync(value);
    expect(same(seen.input.pdf, task.input.pdf)).toBe(true);
    // A plain Uint8Array, as the engine expects: its slice is a copy (a Buffer's would be a view).
    expect(Buffer.isBuffer(seen.input.pdf)).toBe(false);
    const head = seen.input.pdf.slice(0, 4);
    head[0] = 99;
    expect(seen.input.pdf[0]).toBe(7);
    const answer = saveFilesSync({ pdf: big(9), digest: new Uint8Array(32) }, dir);
    const back = await fromFiles(answer);
    expect(same(back.pdf, big(9))).toBe(true);
    expect(back.digest).toEqual(new Uint8Array(32));
    expect(readdirSync(dir)).toEqual([files[0]!.slice(dir.length + 1)]); // the answer's file is gone
  });

  it('a truncated file is an error, not a short document', async () => {
    const { value } = await toFiles({ pdf: big(1) }, dir);
    const ref = value.pdf as unknown as { $file: string; length: number };
    expect(() => loadFilesSync({ pdf: { ...ref, length: ref.length + 1 } })).toThrow(/holds \d+ bytes, \d+ were sent/);
    expect(existsSync(ref.$file)).toBe(true);
  });
});

describe('an answer cut off mid-write', () => {
  it('is written as .part and renamed whole; removePartials sweeps only the .part files of that worker', async () => {
    const dir = tempDir('localsign-partials-');
    try {
      const big = new Uint8Array(FILE_MIN_BYTES).fill(7);
      const saved = saveFilesSync({ pdf: big }, dir) as unknown as { pdf: { $file: string } };
      expect(readdirSync(dir)).toEqual([basename(saved.pdf.$file)]);
      expect(saved.pdf.$file).toMatch(new RegExp(`xfer-${process.pid}-\\d+-[0-9a-f]{8}\\.tmp$`));
      // What a worker killed mid-write leaves, its own and another worker's.
      writeFileSync(join(dir, `xfer-${process.pid}-99-00000000.tmp.part`), 'half');
      writeFileSync(join(dir, 'xfer-1-1-00000000.tmp.part'), 'other worker');
      await removePartials(dir, process.pid);
      expect(readdirSync(dir).sort()).toEqual([basename(saved.pdf.$file), 'xfer-1-1-00000000.tmp.part'].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a worker process killed while it writes its answer leaves nothing once it has exited', async () => {
    const dir = tempDir('localsign-partials-');
    try {
      // Writes a .part file the way saveFilesSync does, then hangs before the rename (as if killed mid-write).
      const worker = join(dir, 'writer.cjs');
      writeFileSync(worker, `require('node:fs').writeFileSync(${JSON.stringify(dir)} + '/xfer-' + process.pid + '-1-00000000.tmp.part', 'x'); process.send({ ready: 'localsign-worker' }); setInterval(() => {}, 1000);`);
      let exitedPid = 0;
      const exited = new Promise<void>((resolve) => {
        const start = processStarter({ command: process.execPath, args: [worker], script: worker }, { heapMb: 64, scratchDir: () => dir, exited: (pid) => void removePartials(dir, pid).then(() => ((exitedPid = pid), resolve())) });
        const handle = start({ ready: () => handle.terminate(), message: () => undefined, gone: () => undefined });
      });
      await exited;
      expect(exitedPid).toBeGreaterThan(0);
      expect(readdirSync(dir)).toEqual(['writer.cjs']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
