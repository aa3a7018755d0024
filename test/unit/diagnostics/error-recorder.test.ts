import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorRecorder } from '../../../src/diagnostics/error-recorder';
import { InvalidInputError, LocalsignError } from '../../../src/domain/errors';
import { createLogger } from '../../../src/log/logger';
import type { AuditLog } from '../../../src/requests/audit-log';
import { RequestRegistry } from '../../../src/requests/registry';
import { RequestStore } from '../../../src/store/request-store';
import { tempDir } from '../../helpers/temp-dir';

/**
 * CONTRACT GET /v1/errors: each application sees only its own records, up to the largest
 * `limit` (1000), whatever another application does; records with no application are listed to
 * none and carry no request id.
 */
describe('ErrorRecorder: records per application', () => {
  let dir: string;
  const open = () => new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 64 << 20, keep: 2 });
  const jsonl = () =>
    readFileSync(join(dir, 'errors.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  beforeEach(() => {
    dir = tempDir('localsign-errors-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("lists each application's own records only, newest first", () => {
    const rec = open();
    const a1 = rec.record(new InvalidInputError('a one'), { wrapperKey: 'wrp_a', status: 422 });
    const b1 = rec.record(new InvalidInputError('b one'), { wrapperKey: 'wrp_b', status: 422, requestId: 'req_b' });
    const a2 = rec.record(new InvalidInputError('a two'), { wrapperKey: 'wrp_a', status: 422, requestId: 'req_a' });
    expect(rec.list('wrp_a', 20).map((e) => e.error_id)).toEqual([a2.error_id, a1.error_id]);
    expect(rec.list('wrp_b', 20).map((e) => e.error_id)).toEqual([b1.error_id]);
    expect(rec.list('wrp_a', 20, 'req_b')).toEqual([]);
    expect(rec.list('wrp_b', 20, 'req_b').map((e) => e.error_id)).toEqual([b1.error_id]);
    expect(rec.list('wrp_c', 20)).toEqual([]);
    // The listing shows the spec's fields and CONTRACT's two, never the application's key.
    expect(Object.keys(rec.list('wrp_a', 1)[0]!).sort()).toEqual(['error_id', 'request_id', 'short', 'status', 'ts', 'type']);
    expect(jsonl().map((r) => r.wrapper_key)).toEqual(['wrp_a', 'wrp_b', 'wrp_a']);
  });

  it('a record with no application is in the file only, and never carries a request id', () => {
    const rec = open();
    const anon = rec.record(new LocalsignError('unauthorized', 'no key'), { wrapperKey: null, status: 401, requestId: 'req_fromTheUrl' });
    expect(anon.request_id).toBeNull();
    expect(jsonl()).toEqual([expect.objectContaining({ error_id: anon.error_id, request_id: null, wrapper_key: null, status: 401 })]);
    expect(readFileSync(join(dir, 'errors.log'), 'utf8')).toContain(`${anon.error_id} [unauthorized] status=401 request=- app=- no key`);
    expect(open().list('wrp_a', 1000)).toEqual([]);
  });

  it("another application's flood never pushes an application's records out; each keeps its 1000 newest", () => {
    const rec = open();
    const mine = rec.record(new InvalidInputError('mine'), { wrapperKey: 'wrp_a', status: 422 });
    const flood = [];
    for (let i = 0; i < ErrorRecorder.KEEP_IN_MEMORY + 200; i += 1) flood.push(rec.record(new InvalidInputError(`flood ${i}`), { wrapperKey: 'wrp_b', status: 422 }).error_id);
    expect(rec.list('wrp_a', 1000).map((e) => e.error_id)).toEqual([mine.error_id]);
    expect(rec.list('wrp_b', 1000).map((e) => e.error_id)).toEqual(flood.slice(-1000).reverse());
    // After a restart, rebuilt from the files: the flood was folded on disk past its budget
    // (error-coalescer.ts), and the other application's record is still there.
    const reopened = open();
    expect(reopened.list('wrp_a', 1000).map((e) => e.error_id)).toEqual([mine.error_id]);
    expect(reopened.list('wrp_b', 1000).length).toBeLessThanOrEqual(1000);
  });

  it('records written before they named an application (0.2.0) are listed to none', () => {
    appendFileSync(
      join(dir, 'errors.jsonl'),
      JSON.stringify({ error_id: 'err_old', short: 'x', ts: '2026-01-01T00:00:00.000Z', type: 'auth', request_id: 'req_a', status: 401, traceback: '', context: {}, versions: {} }) + '\n',
    );
    const rec = open();
    expect(rec.list('wrp_a', 1000, 'req_a')).toEqual([]);
    expect(rec.readRecords().map((r) => r.error_id)).toEqual(['err_old']);
  });
});

describe("RequestRegistry.fail: an async failure is the request's application's record", () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('localsign-errors-fail-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('listed to the wrapper that created the request, under its id, to nobody else', async () => {
    const store = new RequestStore(join(dir, 'requests.jsonl'));
    const errors = new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 1 << 20, keep: 2 });
    const audit = { append: async () => undefined, close: async () => undefined } as unknown as AuditLog;
    const silent = new Writable({ write: (_c, _e, cb) => cb() });
    const registry = new RequestRegistry(store, audit, errors, createLogger({ stderr: silent, file: null }), () => new Date('2026-11-22T10:00:00.000Z'));
    try {
      const entry = await registry.create({ kind: 'blockchain', credentialKey: 'cred', wrapperKey: 'wrp_a', params: { engine: 'chip', txHash: 'ab'.repeat(32), chainId: null } });
      expect(await registry.fail(entry.requestId, new LocalsignError('upstream', 'too slow', { type: 'timeout' }))).toBe(true);
      const [listed] = errors.list('wrp_a', 20, entry.requestId);
      expect(listed).toMatchObject({ request_id: entry.requestId, status: null, type: 'timeout', short: 'too slow', error_id: store.get(entry.requestId)!.errorId });
      expect(errors.list('wrp_b', 20)).toEqual([]);
      expect(errors.readRecords()[0]!.wrapper_key).toBe('wrp_a');
    } finally {
      await store.close();
    }
  });
});
