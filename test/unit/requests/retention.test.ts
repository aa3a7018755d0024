import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyRetention } from '../../../src/requests/retention';
import { RequestStore, type RequestEntry } from '../../../src/store/request-store';
import { makeTmpHome } from '../../helpers/tmp-home';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 22, 10, minutes)).toISOString();
const entry = (id: string, created: string, status: RequestEntry['status'] = 'DONE'): RequestEntry => ({
  requestId: id, kind: 'blockchain', status, credentialKey: 'c', wrapperKey: 'w', createdAt: created, completedAt: null, params: { engine: 'chip', txHash: 'ab'.repeat(32), chainId: null },
});

describe('applyRetention (CONTRACT: 7 days or 10,000 results, whichever is less)', () => {
  const tmp = makeTmpHome();
  afterEach(() => tmp.cleanup());

  it('drops the oldest beyond the count and everything older than the age, never PENDING', async () => {
    const store = new RequestStore(join(tmp.home, 'r.jsonl'));
    await store.create(entry('req_old_pending', at(0), 'PENDING'));
    for (let i = 1; i <= 6; i += 1) await store.create(entry(`req_${i}`, at(i)));
    const removedWork: string[] = [];
    const dropped = await applyRetention(store, { now: new Date(at(60)), maxAgeMs: 1000 * 60 * 58, maxResults: 4, forget: (e) => void removedWork.push(e.requestId) });
    // age cut-off is minute 2: req_1 is too old; the count keeps 4 of 7, so req_2 goes too.
    expect(dropped).toBe(2);
    expect(store.list(10).map((e) => e.requestId)).toEqual(['req_6', 'req_5', 'req_4', 'req_3', 'req_old_pending']);
    expect(removedWork).toEqual(['req_1', 'req_2']);
    await store.close();
  });

  it('forgets one request\'s files at a time, each with its entry (the kind says whether it has files)', async () => {
    const own = makeTmpHome();
    const store = new RequestStore(join(own.home, 'r.jsonl'));
    for (let i = 1; i <= 50; i += 1) await store.create(entry(`req_${i}`, at(i)));
    let inFlight = 0;
    let most = 0;
    const kinds: string[] = [];
    await applyRetention(store, {
      now: new Date(at(60)),
      maxAgeMs: 1000 * 60 * 60,
      maxResults: 10,
      forget: async (e) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        kinds.push(e.kind);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
      },
    });
    expect(kinds).toHaveLength(40);
    expect(new Set(kinds)).toEqual(new Set(['blockchain']));
    expect(most).toBe(1);
    await store.close();
    own.cleanup();
  });
});
