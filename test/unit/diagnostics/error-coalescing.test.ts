import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_BURST, SAMPLED_IDS, UNAUTH_BURST } from '../../../src/diagnostics/error-coalescer';
import { ErrorRecorder, type ErrorRecord } from '../../../src/diagnostics/error-recorder';
import { LocalsignError } from '../../../src/domain/errors';
import { tempDir } from '../../helpers/temp-dir';

/** Issue 10: floods of failures are coalesced, so they cannot rotate real records out. */
let dir: string;
let clock: number;
let summaries: ErrorRecord[];
const now = () => new Date(clock);

function recorder(rotate = { bytes: 1 << 20, keep: 2 }): ErrorRecorder {
  return new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, rotate, now, (s) => summaries.push(s));
}

const unauthorized = new LocalsignError('unauthorized', 'missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)', { type: 'auth' });
const invalid = new LocalsignError('invalid', 'tx_hash must be 64 hex digits', { type: 'validation' });

beforeEach(() => {
  dir = tempDir('localsign-harden-recorder-');
  clock = Date.parse('2026-01-01T00:00:00.000Z');
  summaries = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ErrorRecorder under a flood', () => {
  it('80,000 unauthenticated failures over ten minutes leave the records of real requests in the history', () => {
    const errors = recorder();
    const real = errors.record(new LocalsignError('upstream', 'the chip did not answer', { type: 'chip' }), { requestId: 'req_real', status: null, wrapperKey: 'wrp_app' });
    const refused = errors.record(invalid, { status: 422, wrapperKey: 'wrp_app' });
    const ids: string[] = [];
    let full = 0;
    for (let i = 0; i < 80_000; i += 1) {
      clock += 7; // 80,000 in 560 s
      const rec = errors.record(i % 2 ? unauthorized : new LocalsignError('forbidden', 'this Host is not served', { type: 'host' }), { status: i % 2 ? 401 : 403, wrapperKey: null, context: { path: '/v1/results' } });
      expect(rec.error_id).toMatch(/^err_/); // every caller still gets an id
      ids.push(rec.error_id);
      if (!rec.coalesced) full += 1;
    }
    errors.close();

    const records = errors.readRecords();
    expect(records.map((r) => r.error_id)).toContain(real.error_id);
    expect(records.map((r) => r.error_id)).toContain(refused.error_id);
    expect(errors.list('wrp_app', 10).map((r) => r.error_id)).toEqual([refused.error_id, real.error_id]);
    // A hundred full records (the burst) and a few summaries: far from the rotation size.
    // The burst, plus what 560 s at 100 an hour give back (15.5).
    expect(full).toBe(UNAUTH_BURST + 15);
    expect(statSync(join(dir, 'errors.jsonl')).size).toBeLessThan(400_000);
    expect(() => statSync(join(dir, 'errors.jsonl.1'))).toThrow();
    // Every coalesced failure is counted in a summary, grouped by type and status, with sampled ids.
    const groups = records.filter((r) => r.context.coalesced).map((r) => r.context.coalesced as { count: number; error_ids: string[]; type: string; status: number; error_ids_omitted: number });
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(80_000 - full);
    expect(new Set(groups.map((g) => `${g.type} ${g.status}`))).toEqual(new Set(['auth 401', 'host 403']));
    for (const g of groups) {
      expect(g.error_ids.length).toBeLessThanOrEqual(SAMPLED_IDS);
      expect(g.error_ids.length + g.error_ids_omitted).toBe(g.count);
      for (const id of g.error_ids) expect(ids).toContain(id);
    }
    expect(summaries.length).toBe(groups.length);
    expect(records.filter((r) => r.context.coalesced).every((r) => r.wrapper_key === null && r.request_id === null)).toBe(true);
  });

  it('one application flooding bad bodies is coalesced on disk; it still sees each failure; others keep their budget', () => {
    const errors = recorder();
    const seen: string[] = [];
    for (let i = 0; i < 1000; i += 1) {
      clock += 10; // 1,000 in 10 s
      seen.push(errors.record(invalid, { status: 422, wrapperKey: 'wrp_flood' }).error_id);
    }
    const other = errors.record(invalid, { status: 422, wrapperKey: 'wrp_calm' });
    expect(other.coalesced).toBe(false);
    // A request's own failure is never coalesced, even for the flooding key.
    expect(errors.record(invalid, { status: null, requestId: 'req_x', wrapperKey: 'wrp_flood' }).coalesced).toBe(false);
    clock += 60_000;
    errors.record(invalid, { status: 422, wrapperKey: 'wrp_calm' }); // a later record closes the flood's window
    const lines = readFileSync(join(dir, 'errors.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ErrorRecord);
    // The burst, plus what 10 s at 200 a minute give back (33.3).
    const fullLines = lines.filter((r) => r.wrapper_key === 'wrp_flood' && !r.context.coalesced && !r.request_id);
    expect(fullLines).toHaveLength(APP_BURST + 33);
    const summary = lines.find((r) => r.context.coalesced);
    expect(summary).toMatchObject({ wrapper_key: 'wrp_flood', type: 'validation', status: 422, short: 'tx_hash must be 64 hex digits', request_id: null });
    expect((summary!.context.coalesced as { count: number }).count).toBe(1000 - fullLines.length);
    // GET /v1/errors: each of its failures, coalesced on disk or not (the last 1,000 of them).
    expect(errors.list('wrp_flood', 1000).filter((r) => r.request_id === null).map((r) => r.error_id)).toEqual(seen.slice(1).reverse());
    errors.close();
  });
});
