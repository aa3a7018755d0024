import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attemptsOf, RequestStore, type RequestEntry } from '../../../src/store/request-store';
import { makeTmpHome } from '../../helpers/tmp-home';

const entry = (id: string, created: string): RequestEntry => ({
  request_id: id,
  kind: 'blockchain',
  status: 'PENDING',
  credential_key: 'cred',
  wrapper_key: 'wrp_x',
  created_at: created,
  completed_at: null,
  params: { engine: 'chip', txHash: 'ab'.repeat(32), chainId: null },
});

describe('RequestStore', () => {
  let home: ReturnType<typeof makeTmpHome>;
  let journal: string;
  beforeEach(() => {
    home = makeTmpHome();
    journal = join(home.home, 'requests.jsonl');
  });
  afterEach(() => home.cleanup());

  it('persists transitions and replays them after reopening', async () => {
    const a = new RequestStore(journal);
    await a.create(entry('req_1', '2026-11-22T10:00:00.000Z'));
    await a.create(entry('req_2', '2026-11-22T10:00:01.000Z'));
    await a.markDone('req_1', '2026-11-22T10:00:02.000Z', { v: 27 });
    await a.markError('req_2', '2026-11-22T10:00:03.000Z', 'boom', 'err_1');
    await a.close();
    const b = new RequestStore(journal);
    expect(b.get('req_1')).toMatchObject({ status: 'DONE', completed_at: '2026-11-22T10:00:02.000Z', result: { v: 27 } });
    expect(b.get('req_2')).toMatchObject({ status: 'ERROR', error: 'boom', error_id: 'err_1' });
    await b.close();
  });

  it('journals params under their stored names and reads them back in the service\'s words (issue 18)', async () => {
    const a = new RequestStore(journal);
    const pades: RequestEntry = {
      ...entry('req_p', '2026-11-22T10:00:00.000Z'),
      kind: 'pades',
      params: { engine: 'platform', designKey: 'd1', variables: { k: 'v' }, reason: null, location: null, signerName: 'Zoë', level: 'B-T', certify: null, pinFromRequest: true },
    };
    await a.create(pades);
    await a.create(entry('req_e', '2026-11-22T10:00:01.000Z'));
    await a.close();
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { e: { params: Record<string, unknown> } });
    expect(lines[0]!.e.params).toEqual({ engine: 'platform', design_key: 'd1', variables: { k: 'v' }, reason: null, location: null, signer_name: 'Zoë', level: 'B-T', certify: null, pin_from_request: true });
    expect(lines[1]!.e.params).toEqual({ engine: 'chip', tx_hash: 'ab'.repeat(32), chain_id: null });
    // A journal from before the remote platform: no engine, a chip request.
    appendFileSync(journal, JSON.stringify({ t: 'c', e: { ...entry('req_old', '2026-11-22T10:00:02.000Z'), params: { tx_hash: 'cd'.repeat(32), chain_id: 1 } } }) + '\n');
    const b = new RequestStore(journal);
    expect(b.get('req_p')!.params).toEqual(pades.params);
    expect(b.get('req_e')!.params).toEqual({ engine: 'chip', txHash: 'ab'.repeat(32), chainId: null });
    expect(b.get('req_old')!.params).toEqual({ engine: 'chip', txHash: 'cd'.repeat(32), chainId: 1 });
    await b.compact();
    await b.close();
    const c = new RequestStore(journal);
    expect(c.get('req_p')!.params).toEqual(pades.params);
    expect(readFileSync(journal, 'utf8')).not.toMatch(/designKey|txHash|pinFromRequest/);
    await c.close();
  });

  it('keeps the first final transition (a late timeout cannot overwrite DONE)', async () => {
    const s = new RequestStore(journal);
    await s.create(entry('req_1', '2026-11-22T10:00:00.000Z'));
    await Promise.all([s.markDone('req_1', 't1', { v: 28 }), s.markError('req_1', 't2', 'timeout', 'err_2')]);
    expect(s.get('req_1')!.status).toBe('DONE');
    await s.close();
    const again = new RequestStore(journal);
    expect(again.get('req_1')!.status).toBe('DONE');
    await again.close();
  });

  it('lists newest first with creation order breaking ties, lazily', async () => {
    const s = new RequestStore(journal);
    for (let i = 0; i < 5; i += 1) await s.create(entry(`req_${i}`, '2026-11-22T10:00:00.000Z'));
    expect(s.list(3).map((e) => e.request_id)).toEqual(['req_4', 'req_3', 'req_2']);
    await s.remove(['req_3']);
    expect(s.list(10).map((e) => e.request_id)).toEqual(['req_4', 'req_2', 'req_1', 'req_0']);
    await s.close();
  });

  it('ignores a torn last line left by a crash mid-write', async () => {
    const s = new RequestStore(journal);
    await s.create(entry('req_1', '2026-11-22T10:00:00.000Z'));
    await s.close();
    appendFileSync(journal, '{"t":"d","id":"req_1","at":"x","res');
    const again = new RequestStore(journal);
    expect(again.get('req_1')!.status).toBe('PENDING');
    await again.close();
  });

  it('compaction rewrites only live entries', async () => {
    const s = new RequestStore(journal);
    for (let i = 0; i < 20; i += 1) {
      await s.create(entry(`req_${i}`, '2026-11-22T10:00:00.000Z'));
      await s.markDone(`req_${i}`, 'at', { i });
    }
    await s.remove(Array.from({ length: 10 }, (_, i) => `req_${i}`));
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(41);
    await s.compact();
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(10);
    expect(JSON.parse(lines[0]!)).toMatchObject({ t: 'c', e: { request_id: 'req_10', status: 'DONE', result: { i: 10 } } });
    await s.create(entry('req_new', 'later'));
    await s.close();
    const again = new RequestStore(journal);
    expect(again.size).toBe(11);
    await again.close();
  });

  it('counts attempts: the creation record is the first, each resume adds one, a clean stop gives one back', async () => {
    const s = new RequestStore(journal);
    await s.create(entry('req_1', '2026-11-22T10:00:00.000Z'));
    await s.create(entry('req_2', '2026-11-22T10:00:00.000Z'));
    expect(attemptsOf(s.get('req_1')!)).toBe(1);
    await s.recordAttempt('req_1', 't1');
    await s.releaseAttempt('req_2', 't1');
    expect([attemptsOf(s.get('req_1')!), attemptsOf(s.get('req_2')!)]).toEqual([2, 0]);
    // No journal line for a first run: only the resume and the clean stop wrote one each.
    expect(readFileSync(journal, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { t: string }).t)).toEqual(['c', 'c', 'a', 'p']);
    await s.close();
    const again = new RequestStore(journal);
    expect([attemptsOf(again.get('req_1')!), attemptsOf(again.get('req_2')!)]).toEqual([2, 0]);
    await again.close();
  });

  it('compaction keeps the attempt count; a final request ignores later attempt records', async () => {
    const s = new RequestStore(journal);
    await s.create(entry('req_1', '2026-11-22T10:00:00.000Z'));
    await s.create(entry('req_2', '2026-11-22T10:00:00.000Z'));
    await s.recordAttempt('req_1', 't1');
    await s.markDone('req_2', 't2', { v: 27 });
    await s.recordAttempt('req_2', 't3');
    await s.compact();
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(2);
    await s.close();
    const again = new RequestStore(journal);
    expect(again.get('req_1')).toMatchObject({ status: 'PENDING', attempts: 2 });
    expect(again.get('req_2')).toMatchObject({ status: 'DONE' });
    expect(again.get('req_2')!.attempts).toBeUndefined();
    await again.close();
  });

  it('starts empty when there is no journal yet', async () => {
    writeFileSync(join(home.home, 'other'), '');
    const s = new RequestStore(journal);
    expect(s.size).toBe(0);
    expect(s.list(5)).toEqual([]);
    await s.close();
  });
});
