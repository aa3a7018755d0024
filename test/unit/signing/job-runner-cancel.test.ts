import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorRecorder } from '../../../src/diagnostics/error-recorder';
import { SigningError } from '../../../src/domain/errors';
import { createLogger } from '../../../src/log/logger';
import { AuditLog } from '../../../src/requests/audit-log';
import { RequestRegistry } from '../../../src/requests/registry';
import { JobRunner } from '../../../src/signing/job-runner';
import type { Job, JobDeps, JobOutcome, JobRun } from '../../../src/signing/job-types';
import { RequestStore } from '../../../src/store/request-store';
import { tempDir } from '../../helpers/temp-dir';
import { padesKind, type PadesParams, type SignatureKind } from '../../../src/signing/kinds';

/**
 * Issue 18, the runner's side of cancellation: the timeout ends a request at once, its PAdES slot
 * is given back only once its work has stopped, nothing signs once the request has ended, and a
 * signature that was made is never hidden behind an ERROR: its audit record names the digest. The PAdES job is a stand-in each test drives
 * (what the job does between steps is tested with it elsewhere); setTimeout is faked.
 */
const jobs = { pades: null as Job<PadesParams> | null };
// The real PAdES kind (its slot, spill and release), with the stand-in job.
const standIn: SignatureKind = {
  ...padesKind,
  job: async () => ({ ...(await padesKind.job()), run: (...args: Parameters<Job<PadesParams>>) => jobs.pades!(...args) }),
} as unknown as SignatureKind;

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const DIGEST = 'cd'.repeat(32);
const silent = new Writable({ write: (_c, _e, cb) => cb() });

/** A promise the test settles. */
function gate<T = void>(): { promise: Promise<T>; open: (v: T) => void; fail: (e: unknown) => void } {
  let open!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

describe('JobRunner cancellation (issue 18)', () => {
  // Loaded first, as job-runner.test.ts does: the runner imports it on first use, and the faked
  // timers would hold that import back.
  beforeAll(async () => {
    await padesKind.job();
  });
  let dir: string;
  let store: RequestStore;
  let audit: AuditLog;
  let registry: RequestRegistry;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    dir = tempDir('localsign-jobrunner-cancel-');
    const now = () => new Date(T0);
    store = new RequestStore(join(dir, 'requests.jsonl'));
    audit = new AuditLog(join(dir, 'audit.jsonl'));
    const errors = new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 1 << 20, keep: 2 }, now);
    registry = new RequestRegistry(store, audit, errors, createLogger({ stderr: silent, file: null, now }), now);
  });
  afterEach(async () => {
    jobs.pades = null;
    spilled.length = 0;
    vi.useRealTimers();
    await store.close();
    await audit.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The runner only spills and releases documents here (a spill: the request waits for a slot);
  // the stand-in job reads none.
  const spilled: string[] = [];
  const deps = { now: () => new Date(T0), documents: { spill: (id: string) => void spilled.push(id), releaseWork: () => undefined, readPrepared: async () => null }, kinds: () => standIn, engines: () => ({ name: 'chip', remote: false, sign: () => Promise.reject(new Error('the stand-in jobs sign nothing')) }) } as unknown as JobDeps;
  const runner = (concurrency = 4) => new JobRunner(registry, deps, 1000, concurrency);

  /** A PAdES request created `laterMs` after T0 (its own timeout counts from then). */
  const create = async (laterMs = 0) => {
    const e = await registry.create({ kind: 'pades', credentialKey: 'cred-pades', wrapperKey: 'wrp_test', params: { engine: 'chip', designKey: null, variables: {}, reason: null, location: null, signerName: null } });
    e.createdAt = new Date(T0 + laterMs).toISOString();
    return e;
  };
  const status = (id: string) => store.get(id)?.status;
  const outcome = (): JobOutcome => ({ result: { bytes: 1, level: 'B-B' }, digestHex: DIGEST });
  const auditLines = () => readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request_id: string; digest: string | null; outcome: string });
  /** Lets real I/O (the journal's fsyncs) and promise chains run; setTimeout stays faked. */
  const settle = async (until: () => boolean) => {
    for (const end = performance.now() + 10_000; !until() && performance.now() < end; ) await new Promise((r) => setImmediate(r));
    expect(until(), String(until)).toBe(true);
  };

  it('ends a request at its timeout at once, but gives its PAdES slot to the next only when its work has stopped', async () => {
    const r = runner(1);
    const stopped = gate();
    const started: string[] = [];
    const a = await create(0);
    const b = await create(5_000); // its own timeout is far off
    jobs.pades = async (entry, _deps, run) => {
      started.push(entry.requestId);
      if (entry.requestId === b.requestId) return outcome();
      // Work that takes a while to wind down once aborted (a PDF worker being ended, a PIN pad cancelled).
      await new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve(), { once: true }));
      await stopped.promise;
      run.signal.throwIfAborted();
      return outcome();
    };
    r.start(a);
    await settle(() => started.length === 1);
    r.start(b);
    await vi.advanceTimersByTimeAsync(1);
    await settle(() => spilled.includes(b.requestId));
    await vi.advanceTimersByTimeAsync(999);
    await settle(() => status(a.requestId) === 'ERROR');
    expect(store.get(a.requestId)?.error).toBe('signing did not complete within 1 s');
    // A's work has not stopped yet: B still waits for the slot.
    for (const end = performance.now() + 200; performance.now() < end; ) await new Promise((r) => setImmediate(r));
    expect(started).toEqual([a.requestId]);
    expect(status(b.requestId)).toBe('PENDING');
    stopped.open();
    await settle(() => status(b.requestId) === 'DONE');
    expect(started).toEqual([a.requestId, b.requestId]);
    await r.drain(60_000);
  });

  it('a request still waiting for a PAdES slot at its timeout ends then, and its job never runs', async () => {
    const r = runner(1);
    const holder = gate<JobOutcome>();
    const started: string[] = [];
    const a = await create(60_000); // holds the slot past B's timeout
    const b = await create(0);
    jobs.pades = async (entry) => {
      started.push(entry.requestId);
      return entry.requestId === a.requestId ? holder.promise : outcome();
    };
    r.start(a);
    await settle(() => started.length === 1);
    r.start(b);
    await vi.advanceTimersByTimeAsync(1000);
    await settle(() => status(b.requestId) === 'ERROR');
    holder.open(outcome());
    await settle(() => status(a.requestId) === 'DONE');
    expect(started).toEqual([a.requestId]);
    await r.drain(60_000);
  });

  it('once the request has ended, the job can no longer sign: signing() throws the timeout', async () => {
    const r = runner();
    const late = gate();
    let refused: unknown = null;
    jobs.pades = async (_entry, _deps, run: JobRun) => {
      // A step that ignored the signal (a login that returned late): it reaches the token's door.
      await late.promise;
      try {
        run.signing(DIGEST);
      } catch (error) {
        refused = error;
        throw error;
      }
      return outcome();
    };
    const a = await create(0);
    r.start(a);
    await vi.advanceTimersByTimeAsync(1000);
    await settle(() => status(a.requestId) === 'ERROR');
    late.open();
    await settle(() => refused !== null);
    expect(refused).toMatchObject({ type: 'timeout', message: 'signing did not complete within 1 s' });
    await r.drain(60_000);
    // No signature was made: the ERROR record names no digest.
    expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR', digest: null })]);
  });

  it('a signature under way when the timeout comes is waited for, then named: ERROR, with its digest in the audit record', async () => {
    const r = runner();
    const token = gate<Uint8Array>();
    let after: unknown = null;
    jobs.pades = async (_entry, _deps, run) => {
      run.signing(DIGEST); // the chip's onSigning, right before C_Sign
      await token.promise; // a slow card's C_Sign
      try {
        run.signed(DIGEST);
      } catch (error) {
        after = error;
        throw error;
      }
      return outcome();
    };
    const a = await create(0);
    r.start(a);
    await vi.advanceTimersByTimeAsync(5000);
    // The token may still sign: the request does not end on a guess.
    expect(status(a.requestId)).toBe('PENDING');
    token.open(new Uint8Array(64));
    await settle(() => status(a.requestId) === 'ERROR');
    expect(store.get(a.requestId)?.error).toBe('signing did not complete within 1 s');
    expect(after).toMatchObject({ type: 'timeout' }); // the job goes no further with it
    await r.drain(60_000);
    expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR', digest: DIGEST })]);
  });

  it('a timeout after the signature (a timestamp authority that never answers) ends ERROR at once, naming the digest', async () => {
    const r = runner();
    jobs.pades = async (_entry, _deps, run) => {
      run.signing(DIGEST);
      run.signed(DIGEST);
      await new Promise<void>((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true }));
      return outcome();
    };
    const a = await create(0);
    r.start(a);
    await vi.advanceTimersByTimeAsync(1000);
    await settle(() => status(a.requestId) === 'ERROR');
    expect(store.get(a.requestId)?.error).toBe('signing did not complete within 1 s');
    await r.drain(60_000);
    expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR', digest: DIGEST })]);
  });

  it('a token that never answers its C_Sign does not keep the request PENDING: ERROR after a grace, naming the digest', async () => {
    const r = runner();
    jobs.pades = async (_entry, _deps, run) => {
      run.signing(DIGEST);
      return new Promise<JobOutcome>(() => undefined); // a hung C_Sign
    };
    const a = await create(0);
    r.start(a);
    await vi.advanceTimersByTimeAsync(1000 + 29_000);
    expect(status(a.requestId)).toBe('PENDING');
    await vi.advanceTimersByTimeAsync(1000);
    await settle(() => status(a.requestId) === 'ERROR');
    expect(store.get(a.requestId)?.error).toBe('signing did not complete within 1 s');
    await r.drain(60_000);
    // A signature over it may exist: the record says which digest the token was asked to sign.
    expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR', digest: DIGEST })]);
  });

  it('a token that refuses the signature (C_Sign failed) ends ERROR naming no digest: none was made', async () => {
    const r = runner();
    jobs.pades = async (_entry, _deps, run) => {
      run.signing(DIGEST);
      throw new SigningError('token busy-card: C_Sign failed (CKR_DEVICE_ERROR)');
    };
    const a = await create(0);
    r.start(a);
    await settle(() => status(a.requestId) === 'ERROR');
    await r.drain(60_000);
    expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR', digest: null })]);
  });

  it('a failure after the signature exists ends ERROR with the signed digest in the audit record', async () => {
    const r = runner();
    jobs.pades = async (_entry, _deps, run) => {
      run.signed(DIGEST);
      throw new SigningError('timestamp authority tsa.example:80 is unreachable');
    };
    const a = await create(0);
    r.start(a);
    await settle(() => status(a.requestId) === 'ERROR');
    await r.drain(60_000);
    expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR', digest: DIGEST })]);
  });

  describe('the result is written side by side with the PENDING record (issue 18)', () => {
    it('starts writing the result before the request is durable, and writes DONE only after both', async () => {
      const r = runner();
      const a = await create(0);
      const created = gate();
      const written = gate();
      const events: string[] = [];
      jobs.pades = async () => ({ ...outcome(), persist: () => (events.push('persist'), written.promise), discard: async () => void events.push('discard') });
      r.start(a, created.promise.then(() => void events.push('created')));
      await settle(() => events.includes('persist'));
      // The input and the PENDING record are still on their way: the result's write is already under way.
      expect(events).toEqual(['persist']);
      created.open();
      await settle(() => events.includes('created'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(status(a.requestId)).toBe('PENDING');
      written.open();
      await settle(() => status(a.requestId) === 'DONE');
      await r.drain(60_000);
      expect(events).toEqual(['persist', 'created']);
    });

    it('removes a result already written when the request cannot become DONE (its input never reached the disk)', async () => {
      const r = runner();
      const a = await create(0);
      const created = gate();
      const events: string[] = [];
      jobs.pades = async () => ({ ...outcome(), persist: async () => void events.push('persist'), discard: async () => void events.push('discard') });
      r.start(a, created.promise);
      await settle(() => events.includes('persist'));
      created.fail(new SigningError('the disk refused the document'));
      await settle(() => status(a.requestId) === 'ERROR');
      await r.drain(60_000);
      expect(events).toEqual(['persist', 'discard']);
      expect(auditLines()).toEqual([expect.objectContaining({ request_id: a.requestId, outcome: 'ERROR' })]);
    });
  });
});
