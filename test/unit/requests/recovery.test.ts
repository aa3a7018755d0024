import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorRecorder } from '../../../src/diagnostics/error-recorder';
import { createLogger } from '../../../src/log/logger';
import { AuditLog } from '../../../src/requests/audit-log';
import { recoverPending } from '../../../src/requests/recovery';
import { RequestRegistry, type NewRequest } from '../../../src/requests/registry';
import { RequestStore, type RequestEntry } from '../../../src/store/request-store';
import { tempDir } from '../../helpers/temp-dir';
import { BUILT_IN_KINDS, KindTable } from '../../../src/signing/kinds';

const kinds = new KindTable(BUILT_IN_KINDS);

/**
 * Issue 7 item 2: a request whose run a crash cut short gets one more try at the next start; if
 * that one is cut short too, the start after that ends it ERROR instead of running it again.
 */

const silent = new Writable({ write: (_c, _e, cb) => cb() });

describe('recoverPending: one more try, not an endless loop', () => {
  let dir: string;
  let store: RequestStore;
  let audit: AuditLog;
  let registry: RequestRegistry;
  let errors: ErrorRecorder;
  beforeEach(() => {
    dir = tempDir('localsign-recovery-');
    store = new RequestStore(join(dir, 'requests.jsonl'));
    audit = new AuditLog(join(dir, 'audit.jsonl'));
    errors = new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 1 << 20, keep: 2 });
    registry = new RequestRegistry(store, audit, errors, createLogger({ stderr: silent, file: null }), () => new Date('2026-11-22T10:00:00.000Z'));
  });
  afterEach(async () => {
    await store.close();
    await audit.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (kind: 'pades' | 'blockchain') =>
    registry.create({ credentialKey: 'cred', wrapperKey: 'wrp_x', ...(kind === 'pades' ? { kind, params: { engine: 'chip', designKey: null, variables: {}, reason: null, location: null, signer_name: null } } : { kind, params: { engine: 'chip', txHash: 'ab'.repeat(32), chainId: null } }) } as NewRequest);

  const recover = async (workFiles: Set<string>) => {
    const resumed: string[] = [];
    const removed: string[] = [];
    const counts = await recoverPending({
      store,
      registry,
      hasWorkFile: (id) => workFiles.has(id),
      holdsDocument: (e) => kinds.holdsDocument(e.kind),
      resume: (e) => resumed.push(e.requestId),
      workFiles: { list: () => [...workFiles], remove: (id) => void removed.push(id) },
    });
    return { counts, resumed, removed };
  };

  it('resumes a request cut short once (or never started), ends one whose resume was cut short too', async () => {
    const fresh = await create('blockchain'); // crashed during its first run: attempts 1
    const once = await create('pades'); // its resume was cut short as well: attempts 2
    await registry.recordAttempt(once.requestId);
    const evm = await create('blockchain');
    await registry.recordAttempt(evm.requestId);
    const stopped = await create('pades'); // resumed, then a clean stop gave the attempt back
    await registry.recordAttempt(stopped.requestId);
    await registry.releaseAttempt(stopped.requestId);

    const { counts, resumed, removed } = await recover(new Set([once.requestId, stopped.requestId]));
    expect(counts).toEqual({ resumed: 2, failed: 2 });
    expect(resumed).toEqual([fresh.requestId, stopped.requestId]);
    for (const e of [once, evm] as RequestEntry[]) {
      expect(store.get(e.requestId)).toMatchObject({ status: 'ERROR', error: 'the service stopped while signing this request', errorId: expect.stringMatching(/^err_/) });
      expect(errors.readRecords().find((r) => r.request_id === e.requestId)).toMatchObject({ type: 'interrupted', status: null, short: 'the service stopped while signing this request' });
    }
    // Its document is no longer needed once the request is final.
    expect(removed).toEqual([once.requestId]);
  });
});
