import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBytesBefore, readLinesBackward } from '../../../src/store/tail-reader';
import { makeTmpHome } from '../../helpers/tmp-home';

/** Every line of `text` with its offsets, newest first, as a forward read finds them. */
function linesOf(text: string): [string, number, number][] {
  const out: [string, number, number][] = [];
  let start = 0;
  for (const line of text.split(/(?<=\n)/)) {
    if (!line) continue;
    const end = start + Buffer.byteLength(line);
    out.push([line.replace(/\n$/, ''), start, end]);
    start = end;
  }
  return out.reverse();
}

function backward(path: string, max = Infinity): [string, number, number][] {
  const out: [string, number, number][] = [];
  readLinesBackward(path, (line, start, end) => {
    out.push([line, start, end]);
    return out.length < max;
  });
  return out;
}

describe('readLinesBackward', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  let path: string;
  beforeEach(() => {
    tmp = makeTmpHome();
    path = join(tmp.home, 'audit.jsonl');
  });
  afterEach(() => tmp.cleanup());

  it('gives every line newest first with its byte offsets, across the chunks it reads', () => {
    // Lines of every length around the 64 KiB chunk, one longer than a chunk, multi-byte text.
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, pad: 'é'.repeat((i * 37) % 200) }));
    lines.splice(1500, 0, 'x'.repeat(150_000), '');
    const text = lines.join('\n') + '\n';
    writeFileSync(path, text);
    expect(backward(path)).toEqual(linesOf(text));
  });

  it('hands over a torn last line as it is, and reads a one-line file and an empty or missing one', () => {
    writeFileSync(path, '{"a":1}\n{"b":');
    expect(backward(path)).toEqual([
      ['{"b":', 8, 13],
      ['{"a":1}', 0, 8],
    ]);
    writeFileSync(path, '\n');
    expect(backward(path)).toEqual([['', 0, 1]]);
    writeFileSync(path, '');
    expect(backward(path)).toEqual([]);
    expect(backward(join(tmp.home, 'missing.jsonl'))).toEqual([]);
  });

  it('stops where the visitor says', () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `{"i":${i}}`).join('\n') + '\n';
    writeFileSync(path, text);
    expect(backward(path, 3)).toEqual(linesOf(text).slice(0, 3));
  });
});

describe('readBytesBefore', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (tmp = makeTmpHome()));
  afterEach(() => tmp.cleanup());

  it('reads the bytes before an offset, fewer at the start, none past the end', () => {
    const path = join(tmp.home, 'f');
    writeFileSync(path, 'abcdefgh');
    expect(readBytesBefore(path, 6, 3)?.toString()).toBe('def');
    expect(readBytesBefore(path, 2, 3)?.toString()).toBe('ab');
    expect(readBytesBefore(path, 8, 3)?.toString()).toBe('fgh');
    expect(readBytesBefore(path, 9, 3)).toBeNull();
    expect(readBytesBefore(join(tmp.home, 'missing'), 0, 3)).toBeNull();
  });
});
