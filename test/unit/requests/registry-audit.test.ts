import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorRecorder } from '../../../src/diagnostics/error-recorder';
import { createLogger } from '../../../src/log/logger';
import type { AuditLog, AuditRecord } from '../../../src/requests/audit-log';
import { RequestRegistry } from '../../../src/requests/registry';
import { RequestStore } from '../../../src/store/request-store';
import { tempDir } from '../../helpers/temp-dir';

/**
 * CONTRACT Security: "every signature (both kinds) appends an audit record". A signature must not
 * become visible (DONE) before its audit line is durable: a crash between the two would otherwise
 * hand out a signature nobody can account for.
 */

const silent = new Writable({ write: (_c, _e, cb) => cb() });
const tick = () => new Promise((r) => setImmediate(r));

describe('RequestRegistry: audit before DONE', () => {
  let dir: string;
  let store: RequestStore;
  let errors: ErrorRecorder;
  beforeEach(() => {
    dir = tempDir('localsign-registry-');
    store = new RequestStore(join(dir, 'requests.jsonl'));
    errors = new ErrorRecorder({ errorsJsonl: join(dir, 'errors.jsonl'), errorsLog: join(dir, 'errors.log') }, { bytes: 1 << 20, keep: 2 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const registryWith = (audit: Pick<AuditLog, 'append' | 'close'>) =>
    new RequestRegistry(store, audit as AuditLog, errors, createLogger({ stderr: silent, file: null }), () => new Date('2026-11-22T10:00:00.000Z'));
  const newEntry = (registry: RequestRegistry) =>
    registry.create({ kind: 'blockchain', credentialKey: 'cred', wrapperKey: 'wrp_x', params: { engine: 'chip', txHash: 'ab'.repeat(32), chainId: null } });

  it('stays PENDING while its audit line is not yet written, DONE after', async () => {
    let release!: () => void;
    const appended: AuditRecord[] = [];
    const registry = registryWith({
      append: (rec) => {
        appended.push(rec);
        return new Promise<void>((r) => (release = r));
      },
      close: async () => undefined,
    });
    const entry = await newEntry(registry);
    const done = registry.complete(entry.requestId, { r: '0x1' }, 'ab'.repeat(32));
    for (let i = 0; i < 5; i += 1) await tick();
    await store.drain();
    expect(appended.map((a) => a.outcome)).toEqual(['DONE']);
    expect(store.get(entry.requestId)?.status).toBe('PENDING');
    release();
    expect(await done).toBe(true);
    expect(store.get(entry.requestId)?.status).toBe('DONE');
  });

  it('a failed audit write leaves the request not DONE, also for a restart', async () => {
    const registry = registryWith({ append: () => Promise.reject(new Error('ENOSPC: no space left on device')), close: async () => undefined });
    const entry = await newEntry(registry);
    await expect(registry.complete(entry.requestId, { r: '0x1' }, 'ab'.repeat(32))).rejects.toThrow('ENOSPC');
    await store.drain();
    expect(store.get(entry.requestId)?.status).toBe('PENDING');
    expect(new RequestStore(join(dir, 'requests.jsonl')).get(entry.requestId)?.status).toBe('PENDING');
  });
});
