import { fstatSync, readSync } from 'node:fs';
import { withFileNoFollowSync } from './no-follow';

/** Bytes read per step from the end: a few hundred audit lines. */
const CHUNK = 64 * 1024;

/** Reads `buf.length` bytes at `position`; false when the file ends first. */
function readFully(fd: number, buf: Buffer, position: number): boolean {
  for (let got = 0; got < buf.length; ) {
    const n = readSync(fd, buf, got, buf.length - got, position + got);
    if (n === 0) return false;
    got += n;
  }
  return true;
}

/**
 * The lines of a line-per-record file, newest first, read from its end in chunks until `visit`
 * returns false: the work is what is read, not the file's size. `start` and `end` are the line's
 * byte offsets (`end` past its newline). A last line without its newline (torn by a crash) is
 * handed over as it is; the caller's parse skips it.
 */
export function readLinesBackward(path: string, visit: (line: string, start: number, end: number) => boolean): void {
  withFileNoFollowSync(path, undefined, (fd) => {
    let position = fstatSync(fd).size;
    /** The bytes from `position` to the end of the earliest line not visited yet (its start is not read yet). */
    let rest = Buffer.alloc(0);
    while (position > 0) {
      const length = Math.min(CHUNK, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      if (!readFully(fd, chunk, position)) return;
      rest = Buffer.concat([chunk, rest]);
      // `rest` ends with a line's newline (or the file's torn end); each newline before that one
      // tells where the line after it starts, so that line can be visited.
      let lineEnd = rest.length;
      for (let nl = newlineAtOrBefore(rest, lineEnd - 2); nl >= 0; nl = newlineAtOrBefore(rest, nl - 1)) {
        if (!visit(textOf(rest, nl + 1, lineEnd), position + nl + 1, position + lineEnd)) return;
        lineEnd = nl + 1;
      }
      rest = rest.subarray(0, lineEnd);
    }
    if (rest.length > 0) visit(textOf(rest, 0, rest.length), 0, rest.length);
  });
}

/** The last newline at index `i` or before it, or -1 (lastIndexOf would count a negative index from the end). */
const newlineAtOrBefore = (buf: Buffer, i: number) => (i < 0 ? -1 : buf.lastIndexOf(0x0a, i));
/** A line's text, without its newline. */
const textOf = (buf: Buffer, start: number, end: number) => buf.toString('utf8', start, buf[end - 1] === 0x0a ? end - 1 : end);

/** The `length` bytes just before offset `end` (fewer at the file's start); null when the file is missing or shorter than `end`. */
export function readBytesBefore(path: string, end: number, length: number): Buffer | null {
  return withFileNoFollowSync(path, null, (fd) => {
    if (fstatSync(fd).size < end) return null;
    const start = Math.max(0, end - length);
    const out = Buffer.alloc(end - start);
    return readFully(fd, out, start) ? out : null;
  });
}
