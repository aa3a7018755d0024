import { AppendJournal } from '../store/append-journal';
import type { DiskQuota } from './disk-quota';

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
 * Exactly one record per request and outcome (issue 10, hardening): a crash after the audit
 * record of a DONE and before the DONE itself is durable leaves the request PENDING; signed again
 * after the restart, it would get a second DONE record, and every reader would have to
 * de-duplicate. The (request, outcome) pairs already in the file are read at start, and an
 * append of one of them is skipped: the record of the first signature stands (the retry's
 * signature is the one the result carries; for a blockchain request both are over the same hash).
 */
export class AuditLog {
  private readonly journal: AppendJournal;
  private readonly written = new Set<string>();
  /** `quota`: each record counts against its application's disk quota (disk-quota.ts). */
  constructor(path: string, private readonly quota: DiskQuota | null = null) {
    for (const r of AppendJournal.readAll<Partial<AuditRecord>>(path)) {
      if (r.request_id && r.outcome) this.written.add(keyOf(r.request_id, r.outcome));
      if (quota && r.ts) quota.addAudit(r.wrapper_key ?? null, recordBytes(r), Date.parse(r.ts));
    }
    this.journal = new AppendJournal(path);
  }
  append(record: AuditRecord): Promise<void> {
    const key = keyOf(record.request_id, record.outcome);
    if (this.written.has(key)) return Promise.resolve();
    this.written.add(key);
    this.quota?.addAudit(record.wrapper_key, recordBytes(record), Date.parse(record.ts));
    // A failed write leaves no record: the next attempt may write it.
    return this.journal.append(record).catch((error: unknown) => {
      this.written.delete(key);
      throw error;
    });
  }
  close(): Promise<void> {
    return this.journal.close();
  }
}

const keyOf = (requestId: string, outcome: string) => `${requestId}\u0000${outcome}`;
/** A record's line in audit.jsonl, near enough (its JSON and the newline). */
const recordBytes = (r: Partial<AuditRecord>) => JSON.stringify(r).length + 1;
