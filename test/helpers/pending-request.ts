import { appendFileSync, readFileSync } from 'node:fs';
import { newRequestId } from '../../src/config/ids';

interface JournalLine {
  t: string;
  e?: Record<string, unknown> & { request_id: string };
}

/**
 * Leaves a request PENDING in a stopped service's journal (requests.jsonl), as a crash or a stop
 * during an upgrade leaves one: a copy of an accepted request (`doneId`), under a new id, created
 * now and not finished. Written as the journal's own "created" line, so the test depends on the
 * journal's format, not on the store's constructor. Returns the new id.
 */
export function leavePendingCopy(journalPath: string, doneId: string): string {
  const text = readFileSync(journalPath, 'utf8');
  // A kill may have torn the last line: it is skipped here as the store skips it, and the new
  // line starts on a line of its own.
  const lines = text.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as JournalLine];
    } catch {
      return [];
    }
  });
  const accepted = lines.find((l) => l.t === 'c' && l.e?.request_id === doneId)?.e;
  if (!accepted) throw new Error(`${doneId} has no "created" line in ${journalPath}`);
  const { result: _r, error: _e, error_id: _i, attempts: _a, ...base } = accepted;
  const id = newRequestId();
  appendFileSync(journalPath, (text === '' || text.endsWith('\n') ? '' : '\n') + JSON.stringify({ t: 'c', e: { ...base, request_id: id, status: 'PENDING', created_at: new Date().toISOString(), completed_at: null } }) + '\n');
  return id;
}
