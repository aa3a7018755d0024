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

export class AuditLog {
  private readonly journal: AppendJournal;
  constructor(path: string) {
    this.journal = new AppendJournal(path);
  }
  append(record: AuditRecord): Promise<void> {
    return this.journal.append(record);
  }
  close(): Promise<void> {
    return this.journal.close();
  }
}
