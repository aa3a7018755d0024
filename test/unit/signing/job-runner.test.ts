import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { computeAddress, recoverAddress } from 'ethers';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Chip } from '../../../src/chip/types';
import { ErrorRecorder } from '../../../src/diagnostics/error-recorder';
import { createLogger } from '../../../src/log/logger';
import { AuditLog } from '../../../src/requests/audit-log';
import { RequestRegistry } from '../../../src/requests/registry';
import { JobRunner } from '../../../src/signing/job-runner';
import { HttpClient } from '../../../src/net/http-client';
import { DocumentStore } from '../../../src/store/document-store';
import { PlatformResultHub } from '../../../src/platform/remote/results';
import type { JobDeps } from '../../../src/signing/job-types';
import { builtInSigning } from '../../helpers/signing-tables';
import { inlineDocumentWork } from '../../helpers/document-work';
import { runSignTask } from '../../../src/signing/sign-tasks';
import { RequestStore } from '../../../src/store/request-store';
import { tempDir } from '../../helpers/temp-dir';

/**
 * CONTRACT "Result semantics": a request never stays PENDING forever; a signer that never answers
 * yields ERROR after the request timeout, counted from creation (so a request resumed after a
 * restart does not get a fresh allowance). No real waiting: setTimeout is faked, the file I/O
 * (journal fdatasync, setImmediate) is real, and drain() resolves when the run has settled.
 */

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const SECRET = Uint8Array.from(Buffer.from('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318', 'hex'));
const PUBLIC = secp256k1.getPublicKey(SECRET, false);
const ADDRESS = computeAddress('0x' + Buffer.from(PUBLIC).toString('hex'));
const TX = 'ab'.repeat(32);
const CREDENTIAL = { credential_key: 'cred-evm', type: 'evm', name: 'w', engine: 'chip', default_design_key: null, address: ADDRESS, chip_key_id: '03', public_key_hex: Buffer.from(PUBLIC).toString('hex') };

const silent = new Writable({ write: (_c, _e, cb) => cb() });

describe('JobRunner request timeout', () => {
  // JobRunner arms the timeout before it awaits the job module's dynamic import; a timer firing
  // during that import rejects with no handler yet (reported: job-runner.ts). Load it first.
  beforeAll(async () => {
    await import('../../../src/signing/kinds/evm');
  });
  let dir: string;
  let clock: number;
  let store: RequestStore;
  let audit: AuditLog;
  let errors: ErrorRecorder;
  let registry: RequestRegistry;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    dir = tempDir('localsign-jobrunner-');
    clock = T0;
    const now = () => new Date(clock);
    store = new RequestStore(join(dir, 'requests.jsonl'));
    audit = new AuditLog(join(dir, 'audit.jsonl'));
    errors = new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 1 << 20, keep: 2 }, now);
    registry = new RequestRegistry(store, audit, errors, createLogger({ stderr: silent, file: null, now }), now);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
    await audit.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const deps = (chip: Chip): JobDeps => ({
    now: () => new Date(clock),
    ...builtInSigning({ getChip: async () => chip }),
    documentWork: inlineDocumentWork(),
    findCredential: (k) => (k === CREDENTIAL.credential_key ? (CREDENTIAL as never) : undefined),
    findDesign: () => undefined,
    documents: new DocumentStore({ work: tmpdir(), results: tmpdir() }),
    tsaUrl: null,
    http: new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null }),
  });
  const neverChip: Chip = { kind: 'soft', listKeys: async () => [], signDigest: () => new Promise<Uint8Array>(() => undefined), close: async () => undefined };
  const realChip: Chip = { ...neverChip, signDigest: async (_k, d) => runSignTask({ op: 'secp256k1-sign', secretKey: SECRET, digest: d }) as Uint8Array };

  const create = (createdAgoMs: number) =>
    registry.create({ kind: 'blockchain', credentialKey: CREDENTIAL.credential_key, wrapperKey: 'wrp_test', params: { engine: 'chip', txHash: TX, chainId: null } }).then((e) => {
      // As if created earlier (a resumed request): the entry carries its own creation time.
      e.createdAt = new Date(T0 - createdAgoMs).toISOString();
      return e;
    });

  it('a job that never completes ends ERROR at the timeout, with an error record and an audit line', async () => {
    const runner = new JobRunner(registry, deps(neverChip), 1000);
    const entry = await create(0);
    runner.start(entry);
    await vi.advanceTimersByTimeAsync(999);
    expect(store.get(entry.requestId)?.status).toBe('PENDING');
    expect(runner.active).toBe(1);

    await vi.advanceTimersByTimeAsync(1);
    await runner.drain(60_000);
    expect(runner.active).toBe(0);
    const after = store.get(entry.requestId)!;
    expect({ status: after.status, error: after.error }).toEqual({ status: 'ERROR', error: 'signing did not complete within 1 s' });

    const records = errors.readRecords();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ error_id: after.errorId, short: 'signing did not complete within 1 s', type: 'timeout', request_id: entry.requestId, status: null });
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { ts: '2026-11-22T10:00:00.000Z', request_id: entry.requestId, wrapper_key: 'wrp_test', credential_key: 'cred-evm', kind: 'blockchain', digest: TX, outcome: 'ERROR' },
    ]);
    // Durable: a store reopened from the journal (a restart) sees ERROR, not PENDING.
    await store.drain();
    expect(new RequestStore(join(dir, 'requests.jsonl')).get(entry.requestId)?.status).toBe('ERROR');
  });

  it('a resumed request whose time already ran out ends ERROR at once, not after a fresh timeout', async () => {
    const runner = new JobRunner(registry, deps(neverChip), 1000);
    const entry = await create(5000);
    runner.start(entry);
    await vi.advanceTimersByTimeAsync(0);
    await runner.drain(60_000);
    expect(store.get(entry.requestId)).toMatchObject({ status: 'ERROR', error: 'signing did not complete within 1 s' });
  });

  it('a job that completes in time is DONE and the timeout firing later changes nothing', async () => {
    const runner = new JobRunner(registry, deps(realChip), 1000);
    const entry = await create(0);
    runner.start(entry);
    await runner.drain(60_000);
    const done = store.get(entry.requestId)!;
    expect(done.status).toBe('DONE');
    const r = done.result as { r: string; s: string; y_parity: number; address: string };
    expect(recoverAddress('0x' + TX, { r: r.r, s: r.s, v: 27 + r.y_parity })).toBe(ADDRESS);
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.get(entry.requestId)?.status).toBe('DONE');
    expect(errors.readRecords()).toEqual([]);
  });

  it('signs with the credential it was accepted with, even if the catalogue lost it since (a sync after the 202)', async () => {
    const runner = new JobRunner(registry, { ...deps(realChip), findCredential: () => undefined }, 60_000);
    const accepted = await create(0);
    runner.start(accepted, Promise.resolve(), { credential: CREDENTIAL as never, design: null });
    const resumed = await create(0);
    runner.resume(resumed); // no snapshot: it looks the credential up, and it is gone
    await runner.drain(60_000);
    expect(store.get(accepted.requestId)).toMatchObject({ status: 'DONE' });
    expect(store.get(resumed.requestId)).toMatchObject({ status: 'ERROR', error: 'credential cred-evm is no longer an EVM credential in the cache' });
  });

  it('a resumed run records its attempt durably before the job signs; a first run writes none', async () => {
    const journal = join(dir, 'requests.jsonl');
    const kinds = () => readFileSync(journal, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { t: string }).t);
    const seen: string[][] = [];
    const watchingChip: Chip = { ...realChip, signDigest: async (k, d) => (seen.push(kinds()), realChip.signDigest(k, d)) };
    const runner = new JobRunner(registry, deps(watchingChip), 60_000);
    const first = await create(0);
    runner.start(first);
    await runner.drain(60_000);
    const resumed = await create(0);
    runner.resume(resumed);
    await runner.drain(60_000);
    // On disk when the chip was asked: the first run's creation only; the resume's attempt too.
    expect(seen).toEqual([['c'], ['c', 'd', 'c', 'a']]);
    expect(store.get(first.requestId)).toMatchObject({ status: 'DONE' });
    expect(store.get(first.requestId)!.attempts).toBeUndefined();
    expect(store.get(resumed.requestId)).toMatchObject({ status: 'DONE', attempts: 2 });
  });

  it('a clean stop gives back the attempts still running, so the next start resumes them', async () => {
    // A chip that never answers and says when both jobs reached it (the resume only after its
    // attempt record is durable).
    let reached!: () => void;
    const bothSigning = new Promise<void>((resolve) => (reached = resolve));
    let calls = 0;
    const stuckChip: Chip = { ...neverChip, signDigest: () => (++calls === 2 && reached(), new Promise<Uint8Array>(() => undefined)) };
    const runner = new JobRunner(registry, deps(stuckChip), 60_000);
    const first = await create(0);
    const resumed = await create(0);
    await registry.recordAttempt(resumed.requestId); // as a crash during its resume left it
    runner.start(first);
    runner.resume(resumed);
    await bothSigning;
    expect([store.get(first.requestId)!.attempts, store.get(resumed.requestId)!.attempts]).toEqual([undefined, 3]);
    const drained = runner.drain(10);
    await vi.advanceTimersByTimeAsync(10);
    await drained;
    expect(runner.active).toBe(2); // both still wait on the chip: a stop would interrupt them
    await runner.releaseUnfinished();
    expect([store.get(first.requestId)!.attempts, store.get(resumed.requestId)!.attempts]).toEqual([0, 2]);
  });
});

describe('JobRunner and the remote platform', () => {
  it('submits a platform request only once its PENDING record is durable (a push may come back at once)', async () => {
    const dir = tempDir('localsign-jobrunner-');
    const now = () => new Date(T0);
    const store = new RequestStore(join(dir, 'requests.jsonl'));
    const audit = new AuditLog(join(dir, 'audit.jsonl'));
    const errors = new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 1 << 20, keep: 2 }, now);
    const registry = new RequestRegistry(store, audit, errors, createLogger({ stderr: silent, file: null, now }), now);
    const events: string[] = [];
    const platform = {
      submitSign: async () => void events.push('submit'),
      pollResult: () => new Promise(() => undefined),
    };
    const credential = { ...CREDENTIAL, engine: 'platform' };
    const runner = new JobRunner(registry, {
      now,
      ...builtInSigning({
        getChip: async () => { throw new Error('no chip for a platform credential'); },
        platform: { platform: () => platform as never, hub: new PlatformResultHub() },
      }),
      documentWork: inlineDocumentWork(),
      findCredential: (k) => (k === credential.credential_key ? (credential as never) : undefined),
      findDesign: () => undefined,
      documents: new DocumentStore({ work: dir, results: dir }),
      tsaUrl: null,
      http: new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null }),
    }, 60_000);
    try {
      const { entry, durable } = registry.begin({ kind: 'blockchain', credentialKey: credential.credential_key, wrapperKey: 'wrp_test', params: { engine: 'platform', txHash: TX, chainId: null } });
      let release!: () => void;
      const created = new Promise<void>((resolve) => (release = resolve)).then(() => durable).then(() => void events.push('durable'));
      runner.start(entry, created);
      await new Promise((r) => setTimeout(r, 50));
      expect(events).toEqual([]);
      release();
      for (let i = 0; i < 100 && events.length < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(events).toEqual(['durable', 'submit']);
      expect(store.get(entry.requestId)?.status).toBe('PENDING');
    } finally {
      await runner.drain(0);
      await store.close();
      await audit.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
