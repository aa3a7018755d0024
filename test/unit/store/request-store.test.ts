import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attemptsOf, COMPACT_AFTER_INPUT_BYTES, RequestStore, type RequestEntry } from '../../../src/store/request-store';
import { makeTmpHome } from '../../helpers/tmp-home';

const entry = (id: string, created: string): RequestEntry => ({
  requestId: id,
  kind: 'blockchain',
  status: 'PENDING',
  credentialKey: 'cred',
  wrapperKey: 'wrp_x',
  createdAt: created,
  completedAt: null,
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
    expect(b.get('req_1')).toMatchObject({ status: 'DONE', completedAt: '2026-11-22T10:00:02.000Z', result: { v: 27 } });
    expect(b.get('req_2')).toMatchObject({ status: 'ERROR', error: 'boom', errorId: 'err_1' });
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

  it('journals an entry\'s own fields under their stored names: camelCase in memory only (issue 18)', async () => {
    const a = new RequestStore(journal);
    await a.create(entry('req_1', '2026-11-22T10:00:00.000Z'));
    await a.create(entry('req_2', '2026-11-22T10:00:01.000Z'));
    await a.markDone('req_1', '2026-11-22T10:00:02.000Z', { r: '0x1', s: '0x2', v: 27, y_parity: 0, address: '0xA', chain_id: null });
    await a.markError('req_2', '2026-11-22T10:00:03.000Z', 'boom', 'err_1');
    const appended = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const created = { kind: 'blockchain', status: 'PENDING', credential_key: 'cred', wrapper_key: 'wrp_x', completed_at: null, params: { engine: 'chip', tx_hash: 'ab'.repeat(32), chain_id: null } };
    expect(appended).toEqual([
      { t: 'c', e: { request_id: 'req_1', created_at: '2026-11-22T10:00:00.000Z', ...created } },
      { t: 'c', e: { request_id: 'req_2', created_at: '2026-11-22T10:00:01.000Z', ...created } },
      { t: 'd', id: 'req_1', at: '2026-11-22T10:00:02.000Z', result: { r: '0x1', s: '0x2', v: 27, y_parity: 0, address: '0xA', chain_id: null } },
      { t: 'x', id: 'req_2', at: '2026-11-22T10:00:03.000Z', error: 'boom', error_id: 'err_1' },
    ]);
    // Compaction writes the final entries whole: their completion and error id too.
    await a.compact();
    await a.close();
    const compacted = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(compacted).toEqual([
      { t: 'c', e: { ...(appended[0]!.e as object), status: 'DONE', completed_at: '2026-11-22T10:00:02.000Z', result: { r: '0x1', s: '0x2', v: 27, y_parity: 0, address: '0xA', chain_id: null } } },
      { t: 'c', e: { ...(appended[1]!.e as object), status: 'ERROR', completed_at: '2026-11-22T10:00:03.000Z', error: 'boom', error_id: 'err_1' } },
    ]);
    expect(readFileSync(journal, 'utf8')).not.toMatch(/requestId|credentialKey|wrapperKey|createdAt|completedAt|errorId/);
  });

  it('reads a journal as versions before issue 18 wrote it into camelCase entries', async () => {
    // Verbatim lines of an older journal: a PAdES request made DONE by a 'd' record, an EVM one
    // made DONE, an EVM one made ERROR by an 'x' record (its `error_id`).
    writeFileSync(
      journal,
      [
        '{"t":"c","e":{"request_id":"req_p","kind":"pades","status":"PENDING","credential_key":"cred-pades","wrapper_key":"wrp_a","created_at":"2026-11-22T10:00:00.000Z","completed_at":null,"params":{"engine":"chip","design_key":"d1","variables":{"name":"Zoë"},"reason":"approve","location":null,"signer_name":"Zoë","level":"B-T","certify":null}}}',
        '{"t":"c","e":{"request_id":"req_e","kind":"blockchain","status":"PENDING","credential_key":"cred-evm","wrapper_key":"wrp_a","created_at":"2026-11-22T10:00:01.000Z","completed_at":null,"params":{"engine":"platform","tx_hash":"' + 'cd'.repeat(32) + '","chain_id":1,"pin_from_request":true}}}',
        '{"t":"c","e":{"request_id":"req_x","kind":"blockchain","status":"PENDING","credential_key":"cred-evm","wrapper_key":null,"created_at":"2026-11-22T10:00:02.000Z","completed_at":null,"params":{"engine":"chip","tx_hash":"' + 'ef'.repeat(32) + '","chain_id":null}}}',
        '{"t":"d","id":"req_p","at":"2026-11-22T10:00:05.000Z","result":{"bytes":1234,"level":"B-T"}}',
        '{"t":"d","id":"req_e","at":"2026-11-22T10:00:06.000Z","result":{"r":"0x1","s":"0x2","v":37,"y_parity":0,"address":"0xA","chain_id":1}}',
        '{"t":"x","id":"req_x","at":"2026-11-22T10:00:07.000Z","error":"signing did not complete within 1 s","error_id":"err_7"}',
        '',
      ].join('\n'),
    );
    const expected: RequestEntry[] = [
      {
        requestId: 'req_p',
        kind: 'pades',
        status: 'DONE',
        credentialKey: 'cred-pades',
        wrapperKey: 'wrp_a',
        createdAt: '2026-11-22T10:00:00.000Z',
        completedAt: '2026-11-22T10:00:05.000Z',
        params: { engine: 'chip', designKey: 'd1', variables: { name: 'Zoë' }, reason: 'approve', location: null, signerName: 'Zoë', level: 'B-T', certify: null },
        result: { bytes: 1234, level: 'B-T' },
      },
      {
        requestId: 'req_e',
        kind: 'blockchain',
        status: 'DONE',
        credentialKey: 'cred-evm',
        wrapperKey: 'wrp_a',
        createdAt: '2026-11-22T10:00:01.000Z',
        completedAt: '2026-11-22T10:00:06.000Z',
        params: { engine: 'platform', txHash: 'cd'.repeat(32), chainId: 1, pinFromRequest: true },
        // The result is a stored and wire shape of its own: kept as it was.
        result: { r: '0x1', s: '0x2', v: 37, y_parity: 0, address: '0xA', chain_id: 1 },
      },
      {
        requestId: 'req_x',
        kind: 'blockchain',
        status: 'ERROR',
        credentialKey: 'cred-evm',
        wrapperKey: null,
        createdAt: '2026-11-22T10:00:02.000Z',
        completedAt: '2026-11-22T10:00:07.000Z',
        params: { engine: 'chip', txHash: 'ef'.repeat(32), chainId: null },
        error: 'signing did not complete within 1 s',
        errorId: 'err_7',
      },
    ];
    const s = new RequestStore(journal);
    expect(s.oldest()).toEqual(expected);
    // The compacted journal is the same journal, folded: an older version reads it as it wrote it.
    await s.compact();
    await s.close();
    const compacted = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string; e: Record<string, unknown> });
    expect(compacted.map((l) => Object.keys(l.e).sort())).toEqual([
      ['completed_at', 'created_at', 'credential_key', 'kind', 'params', 'request_id', 'result', 'status', 'wrapper_key'],
      ['completed_at', 'created_at', 'credential_key', 'kind', 'params', 'request_id', 'result', 'status', 'wrapper_key'],
      ['completed_at', 'created_at', 'credential_key', 'error', 'error_id', 'kind', 'params', 'request_id', 'status', 'wrapper_key'],
    ]);
    expect(compacted[0]!.e.params).toEqual({ engine: 'chip', design_key: 'd1', variables: { name: 'Zoë' }, reason: 'approve', location: null, signer_name: 'Zoë', level: 'B-T', certify: null });
    const again = new RequestStore(journal);
    expect(again.oldest()).toEqual(expected);
    await again.close();
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
    expect(s.list(3).map((e) => e.requestId)).toEqual(['req_4', 'req_3', 'req_2']);
    await s.remove(['req_3']);
    expect(s.list(10).map((e) => e.requestId)).toEqual(['req_4', 'req_2', 'req_1', 'req_0']);
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

  it('counts each application\'s result bytes (its disk quota) the same after a compaction and a restart', async () => {
    const a = new RequestStore(journal);
    await a.create({ ...entry('req_1', '2026-11-22T10:00:00.000Z'), kind: 'pades' });
    await a.create({ ...entry('req_2', '2026-11-22T10:00:01.000Z'), kind: 'pades' });
    await a.markDone('req_1', '2026-11-22T10:00:02.000Z', { bytes: 400_000 });
    // Compacted with one DONE and one PENDING, then the PENDING one is done after it.
    await a.compact();
    await a.markDone('req_2', '2026-11-22T10:00:03.000Z', { bytes: 300_000 });
    expect(a.resultBytesOf('wrp_x')).toBe(700_000);
    await a.close();
    const b = new RequestStore(journal);
    expect(b.resultBytesOf('wrp_x')).toBe(700_000);
    // And once more folded: every entry a compacted one.
    await b.compact();
    await b.close();
    const c = new RequestStore(journal);
    expect(c.resultBytesOf('wrp_x')).toBe(700_000);
    await c.close();
  });

  it('keeps a journaled input with its PENDING request, through a compaction and a restart, and drops it once the request is final', async () => {
    const pdf = (n: number) => Buffer.from(`%PDF-1.7 document ${n}`);
    const a = new RequestStore(journal);
    for (const n of [1, 2, 3]) await a.create({ ...entry(`req_${n}`, '2026-11-22T10:00:00.000Z'), kind: 'pades' }, pdf(n));
    await a.create(entry('req_4', '2026-11-22T10:00:00.000Z'));
    // In the request's own line: durable with it.
    const created = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { e: { request_id: string }; input?: string });
    expect(created.map((l) => [l.e.request_id, l.input && Buffer.from(l.input, 'base64').toString()])).toEqual([['req_1', '%PDF-1.7 document 1'], ['req_2', '%PDF-1.7 document 2'], ['req_3', '%PDF-1.7 document 3'], ['req_4', undefined]]);
    await a.markDone('req_1', 'at', { bytes: 10 });
    await a.markError('req_2', 'at', 'failed', 'err_x');
    const inputs = (s: RequestStore) => s.journaledInputs().map(([id, bytes]) => [id, bytes.toString()]);
    expect(inputs(a)).toEqual([['req_3', '%PDF-1.7 document 3']]);
    await a.close();
    // Replayed, then written again by a compaction for the request still PENDING only.
    const b = new RequestStore(journal);
    expect(inputs(b)).toEqual([['req_3', '%PDF-1.7 document 3']]);
    await b.compact();
    const compacted = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { e: { request_id: string }; input?: string });
    expect(compacted.filter((l) => l.input !== undefined).map((l) => l.e.request_id)).toEqual(['req_3']);
    await b.close();
    const c = new RequestStore(journal);
    expect(inputs(c)).toEqual([['req_3', '%PDF-1.7 document 3']]);
    await c.remove(['req_3']);
    expect(inputs(c)).toEqual([]);
    await c.close();
  });

  it('compacts once COMPACT_AFTER_INPUT_BYTES of inputs were journaled, however few the lines', async () => {
    const s = new RequestStore(journal);
    // Eight inputs of base64 just under the bound together, each request final after it.
    const big = Buffer.alloc(Math.floor(((COMPACT_AFTER_INPUT_BYTES - 200_000) * 3) / 4 / 8), 0x41);
    for (let i = 0; i < 8; i += 1) {
      await s.create({ ...entry(`req_${i}`, '2026-11-22T10:00:00.000Z'), kind: 'pades' }, big);
      await s.markDone(`req_${i}`, 'at', { bytes: 1 });
    }
    expect(statSync(journal).size).toBeGreaterThan(COMPACT_AFTER_INPUT_BYTES - 200_000);
    // The ninth's input tips it over: only its own input stays in the file (its request is PENDING).
    await s.create({ ...entry('req_last', '2026-11-22T10:00:00.000Z'), kind: 'pades' }, Buffer.alloc(200_000, 0x42));
    for (let i = 0; i < 250 && statSync(journal).size > 300_000; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statSync(journal).size).toBeLessThan(300_000);
    expect(s.journaledInputs().map(([id]) => id)).toEqual(['req_last']);
    expect(new RequestStore(journal).size).toBe(9);
    await s.close();
  });

  it('drops a removed request\'s document from the file at once: no longer kept than its request', async () => {
    const s = new RequestStore(journal);
    await s.create({ ...entry('req_doc', '2026-11-22T10:00:00.000Z'), kind: 'pades' }, Buffer.from('%PDF-1.7 private text'));
    await s.create(entry('req_evm', '2026-11-22T10:00:00.000Z'));
    await s.markDone('req_doc', 'at', { bytes: 10 });
    await s.markDone('req_evm', 'at', { r: '0x1' });
    // Final, but still kept (its result too): the line with its document stays.
    const documentInFile = () => readFileSync(journal, 'utf8').includes(Buffer.from('%PDF-1.7 private text').toString('base64'));
    expect(documentInFile()).toBe(true);
    // Removing a request without a document starts no compaction.
    await s.remove(['req_evm']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(5);
    // Retention removes it: a compaction follows, without any other reason for one.
    await s.remove(['req_doc']);
    for (let i = 0; i < 100 && documentInFile(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(documentInFile()).toBe(false);
    expect(new RequestStore(journal).size).toBe(0);
    await s.close();
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

  it('what changes while the journal is compacted is in the compacted journal, counted once', async () => {
    const s = new RequestStore(journal);
    const ids = Array.from({ length: 10_000 }, (_, i) => `req_${i}`);
    await Promise.all(ids.map((id) => s.create(entry(id, '2026-11-22T10:00:00.000Z'))));
    let ended = false;
    const compaction = s.compact().then(() => (ended = true));
    await new Promise((resolve) => setImmediate(resolve)); // its snapshot is taken
    // Meanwhile, while it converts and writes its snapshot in slices: every kind of record, on
    // entries of its last slice. An attempt record replayed on top of a count that already
    // holds it would count it twice.
    await Promise.all([
      s.recordAttempt('req_9991', 't1'),
      s.releaseAttempt('req_9992', 't1'),
      s.markDone('req_9993', 't1', { v: 27 }),
      s.markError('req_9994', 't1', 'boom', 'err_4'),
      s.remove(['req_9995']),
      s.create(entry('req_new', '2026-11-22T10:00:01.000Z')),
    ]);
    expect(ended).toBe(false);
    await compaction;
    const live = s.oldest();
    await s.close();
    const again = new RequestStore(journal);
    expect(again.oldest()).toEqual(live);
    expect(again.get('req_9991')).toMatchObject({ status: 'PENDING', attempts: 2 });
    expect(again.get('req_9992')).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(again.get('req_9993')).toMatchObject({ status: 'DONE', result: { v: 27 } });
    expect(again.get('req_9994')).toMatchObject({ status: 'ERROR', errorId: 'err_4' });
    expect(again.get('req_9995')).toBeUndefined();
    expect(again.size).toBe(10_000);
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
