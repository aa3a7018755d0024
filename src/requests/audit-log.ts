import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { AppendJournal } from '../store/append-journal';

/** CONTRACT Security: one line per signature outcome in audit.jsonl; no API deletes it. */
export interface AuditRecord {
  ts: string;
  request_id: string;
  wrapper_key: string | null;
  credential_key: string;
  kind: 'pades' | 'blockchain';
  /** tx hash, or SHA-256 of the CMS signed attributes for PAdES; lowercase hex; null if none was made. */
  digest: string | null;
  outcome: 'DONE' | 'ERROR';
}

/**
 * A crash (or power loss) mid-write can leave a last line without its newline. audit.jsonl is
 * never rewritten, so the first record appended after the restart would be glued to that
 * fragment and unreadable: end the fragment first.
 */
function terminateTornLine(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
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

export class AuditLog {
  private readonly journal: AppendJournal;
  constructor(path: string) {
    terminateTornLine(path);
    this.journal = new AppendJournal(path);
  }
  append(record: AuditRecord): Promise<void> {
    return this.journal.append(record);
  }
  close(): Promise<void> {
    return this.journal.close();
  }
}
