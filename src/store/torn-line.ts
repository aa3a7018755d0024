import { closeSync, fstatSync, fsyncSync, readSync, writeSync } from 'node:fs';
import { openNoFollowSync } from './no-follow';

/**
 * A crash (or power loss) mid-append can leave a line-per-record file ending without its
 * newline. The next record appended would be glued to that fragment and unreadable too, so the
 * fragment is ended first: only the record the crash tore is lost. Used by every append-only
 * file (the request journal, audit.jsonl, errors.jsonl, the logs) when it is opened.
 */
export function terminateTornLine(path: string): void {
  let fd: number;
  try {
    fd = openNoFollowSync(path, 'update');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    if (size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a) {
      writeSync(fd, '\n', size);
      fsyncSync(fd);
    }
  } finally {
    closeSync(fd);
  }
}
