import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditRecord } from '../../../src/requests/audit-log';
import { tempDir } from '../../helpers/temp-dir';

/** audit.jsonl is never compacted, so a torn last line from a crash must not swallow the next record. */

const record = (id: string): AuditRecord => ({
  ts: '2026-11-22T10:00:00.000Z',
  request_id: id,
  wrapper_key: 'wrp_x',
  credential_key: 'cred',
  kind: 'blockchain',
  digest: 'ab'.repeat(32),
  outcome: 'DONE',
});

const parsedLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as AuditRecord];
      } catch {
        return [];
      }
    });

describe('AuditLog', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir('localsign-audit-');
    path = join(dir, 'audit.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('after a torn last line (crash mid-write) the next record is still a line of its own', async () => {
    writeFileSync(path, JSON.stringify(record('req_before')) + '\n{"ts":"2026-11-22T10:00:01.000Z","request_id":"req_to', { mode: 0o600 });
    const log = new AuditLog(path);
    await log.append(record('req_after'));
    await log.close();
    expect(parsedLines(path).map((r) => r.request_id)).toEqual(['req_before', 'req_after']);
  });

  it('leaves a sound file as it is, and starts a missing one', async () => {
    writeFileSync(path, JSON.stringify(record('req_1')) + '\n', { mode: 0o600 });
    const log = new AuditLog(path);
    await log.append(record('req_2'));
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe(JSON.stringify(record('req_1')) + '\n' + JSON.stringify(record('req_2')) + '\n');
    const fresh = new AuditLog(join(dir, 'new.jsonl'));
    await fresh.append(record('req_3'));
    await fresh.close();
    expect(readFileSync(join(dir, 'new.jsonl'), 'utf8')).toBe(JSON.stringify(record('req_3')) + '\n');
  });
});

describe('AuditLog: exactly one record per request and outcome (issue 10)', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir('localsign-harden-audit-');
    path = join(dir, 'audit.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('skips a DONE already in the file (a crash before the DONE was durable), keeps other outcomes', async () => {
    writeFileSync(path, JSON.stringify(record('req_crashed')) + '\n', { mode: 0o600 });
    const log = new AuditLog(path);
    await log.append({ ...record('req_crashed'), digest: 'cd'.repeat(32) }); // signed again after the restart
    await log.append({ ...record('req_crashed'), outcome: 'ERROR', digest: null });
    await log.append(record('req_new'));
    await log.append(record('req_new'));
    await log.close();
    expect(parsedLines(path).map((r) => `${r.request_id} ${r.outcome} ${r.digest?.slice(0, 2) ?? '-'}`)).toEqual(['req_crashed DONE ab', 'req_crashed ERROR -', 'req_new DONE ab']);
  });

  it('a second log over the same file knows what the first wrote', async () => {
    const first = new AuditLog(path);
    await first.append(record('req_a'));
    await first.close();
    const second = new AuditLog(path);
    await second.append(record('req_a'));
    await second.close();
    expect(parsedLines(path)).toHaveLength(1);
  });
});
