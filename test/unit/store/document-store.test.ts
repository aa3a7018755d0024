import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocumentStore, JOURNALED_INPUT_MAX } from '../../../src/store/document-store';
import { isFileBytes, type FileBytes } from '../../../src/store/file-bytes';
import { makeTmpHome } from '../../helpers/tmp-home';

describe('DocumentStore: one owner of a request\'s documents', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  let dirs: { work: string; results: string };
  beforeEach(() => {
    tmp = makeTmpHome();
    dirs = { work: join(tmp.home, 'work'), results: join(tmp.home, 'results') };
    mkdirSync(dirs.work);
    mkdirSync(dirs.results);
  });
  afterEach(() => tmp.cleanup());

  it('keeps an input above JOURNALED_INPUT_MAX durable on disk and readable at once, then releases it', async () => {
    const docs = new DocumentStore(dirs);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7 input '), Buffer.alloc(JOURNALED_INPUT_MAX, 0x20)]);
    const { written, journal } = docs.admit('req_a', pdf);
    expect(journal).toBeNull();
    expect((await docs.readInput('req_a'))!.equals(pdf)).toBe(true);
    await written;
    expect(readdirSync(dirs.work)).toEqual(['req_a.pdf']);
    // A new process (no memory) reads it from disk.
    expect((await new DocumentStore(dirs).readInput('req_a'))!.equals(pdf)).toBe(true);
    expect(new DocumentStore(dirs).listWork()).toEqual(['req_a']);
    await docs.releaseWork('req_a');
    expect(readdirSync(dirs.work)).toEqual([]);
    expect(await docs.readInput('req_a')).toBeNull();
  });

  it('gives an input up to JOURNALED_INPUT_MAX to its request\'s record: no work file, and after a restart from the journal', async () => {
    const docs = new DocumentStore(dirs);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7 small '), Buffer.alloc(JOURNALED_INPUT_MAX - 15, 0x20)]);
    const { written, journal } = docs.admit('req_j', pdf);
    await written;
    // The very bytes, for the PENDING record to carry; nothing in work/.
    expect(journal).toBe(pdf);
    expect(readdirSync(dirs.work)).toEqual([]);
    expect((await docs.inputDocument('req_j')) instanceof Uint8Array).toBe(true);
    // A new process has it only once given it back from the journal (request-store.ts journaledInputs).
    const restarted = new DocumentStore(dirs);
    expect(restarted.hasInput('req_j')).toBe(false);
    restarted.restoreJournaled([['req_j', Buffer.from(pdf)]]);
    expect(restarted.hasInput('req_j')).toBe(true);
    expect((await restarted.readInput('req_j'))!.equals(pdf)).toBe(true);
    // Released without looking for a work file; a request's own work file (a journal from before
    // journaled inputs) is still removed.
    writeFileSync(join(dirs.work, 'req_old.pdf'), '%PDF old');
    await restarted.releaseWork('req_j', { prepared: false });
    await restarted.releaseWork('req_old', { prepared: false });
    expect([restarted.hasInput('req_j'), readdirSync(dirs.work)]).toEqual([false, []]);
  });

  it('holds a large input in memory for a job that starts at once, and on disk for one that must queue', async () => {
    const docs = new DocumentStore(dirs);
    const big = Buffer.alloc(17 * 1024 * 1024, 0x41);
    const small = Buffer.from('%PDF-1.7 small');
    const writes = [docs.admit('req_big', big).written, docs.admit('req_small', small).written];
    // The very buffer accepted, not a copy read back from disk.
    expect((await docs.readInput('req_big'))!.buffer).toBe(big.buffer);
    docs.spill('req_big');
    docs.spill('req_small'); // small inputs stay in memory whatever happens
    expect((await docs.readInput('req_small'))!.buffer).toBe(small.buffer);
    const back = (await docs.readInput('req_big'))!;
    expect(back.buffer).not.toBe(big.buffer);
    expect(back.equals(big)).toBe(true);
    expect(docs.hasInput('req_big')).toBe(true);
    await Promise.all(writes);
  });

  it('answers the long polls a DONE wakes with the result just written, and reads the file after its job', async () => {
    const docs = new DocumentStore(dirs);
    const text = async (id: string) => {
      const file = await docs.openResult(id);
      const chunks: Buffer[] = [];
      for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
      return [file!.size, Buffer.concat(chunks).toString()];
    };
    await docs.writeResult('req_r', new TextEncoder().encode('%PDF signed'));
    // The file on disk made different on purpose: which one the store answers with shows.
    writeFileSync(docs.resultPath('req_r'), '%PDF on disk');
    expect(await text('req_r')).toEqual([11, '%PDF signed']);
    void docs.releaseWork('req_r', { prepared: false });
    // The long polls the DONE woke run before the next turn of the event loop: still the bytes.
    expect(await text('req_r')).toEqual([11, '%PDF signed']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await text('req_r')).toEqual([12, '%PDF on disk']);
    // A result discarded (its request will not be DONE) is not answered from memory either.
    await docs.writeResult('req_d', new TextEncoder().encode('%PDF gone'));
    await docs.discardResult('req_d');
    expect(await docs.openResult('req_d')).toBeNull();
  });

  it('keeps a prepared state across processes, the PDF before its description', async () => {
    const docs = new DocumentStore(dirs);
    expect(await docs.readPrepared('req_p')).toBeNull();
    await docs.savePrepared('req_p', { pdf: new TextEncoder().encode('%PDF prepared'), meta: { contentsOffset: 12, digest: 'AAEC' } });
    const again = await new DocumentStore(dirs).readPrepared('req_p');
    expect(again!.meta).toEqual({ contentsOffset: 12, digest: 'AAEC' });
    // The prepared PDF as its file (a PDF worker reads it; the service does not).
    expect(isFileBytes(again!.pdf)).toBe(true);
    const ref = again!.pdf as FileBytes;
    expect([ref.length, readFileSync(ref.$file, 'utf8')]).toEqual([13, '%PDF prepared']);
    expect(new DocumentStore(dirs).listWork()).toEqual(['req_p']);
    await docs.releaseWork('req_p');
    expect(await docs.readPrepared('req_p')).toBeNull();
  });

  it('adopts a worker\'s file as the prepared PDF and as the result: renamed, not copied', async () => {
    const docs = new DocumentStore(dirs);
    const scratch = join(dirs.work, 'xfer-1-1-ab.tmp');
    writeFileSync(scratch, '%PDF from a worker');
    const kept = await docs.savePrepared('req_q', { pdf: { $file: scratch, length: 18 }, meta: {} });
    expect(existsSync(scratch)).toBe(false);
    expect(readFileSync((kept as FileBytes).$file, 'utf8')).toBe('%PDF from a worker');
    const signed = join(dirs.work, 'xfer-1-2-cd.tmp');
    writeFileSync(signed, '%PDF signed by a worker');
    await docs.writeResult('req_q', { $file: signed, length: 23 });
    expect(existsSync(signed)).toBe(false);
    expect(readFileSync(docs.resultPath('req_q'), 'utf8')).toBe('%PDF signed by a worker');
    // The input as a worker gets it: held bytes while small and in memory, else the work file.
    await docs.admit('req_q', new TextEncoder().encode('%PDF input')).written;
    expect((await docs.inputDocument('req_q')) instanceof Uint8Array).toBe(true);
    await docs.releaseWork('req_q');
  });

  it('keeps a signed result until retention forgets the request', async () => {
    const docs = new DocumentStore(dirs);
    await docs.writeResult('req_r', new TextEncoder().encode('%PDF signed'));
    const file = (await docs.openResult('req_r'))!;
    expect(file.size).toBe(11);
    expect(Buffer.concat(await file.stream.toArray()).toString()).toBe('%PDF signed');
    await docs.forget('req_r');
    expect(await docs.openResult('req_r')).toBeNull();
    expect(existsSync(docs.resultPath('req_r'))).toBe(false);
  });

  it('retention removes the result, and looks for work files only when their removal was not seen to succeed', async () => {
    const docs = new DocumentStore(dirs);
    const big = Buffer.alloc(JOURNALED_INPUT_MAX + 1, 0x25);
    await docs.admit('req_ok', big).written;
    await docs.admit('req_stuck', big).written;
    await docs.writeResult('req_ok', new TextEncoder().encode('%PDF signed'));
    await docs.writeResult('req_stuck', new TextEncoder().encode('%PDF signed'));
    // req_stuck's prepared PDF cannot be removed (a folder in its place: unlink fails).
    mkdirSync(join(dirs.work, 'req_stuck.prepared.pdf'));
    writeFileSync(join(dirs.work, 'req_stuck.prepared.pdf', 'x'), 'x');
    await docs.releaseWork('req_ok');
    await docs.releaseWork('req_stuck');
    expect(readdirSync(dirs.work).sort()).toEqual(['req_stuck.prepared.pdf']);
    // A file that turns up under req_ok's work name after its release is not looked for again
    // (the three looks were most of a retention sweep's work); req_stuck's are tried again.
    writeFileSync(join(dirs.work, 'req_ok.pdf'), 'not looked for');
    rmSync(join(dirs.work, 'req_stuck.prepared.pdf'), { recursive: true });
    writeFileSync(join(dirs.work, 'req_stuck.prepared.pdf'), 'removable now');
    await docs.forget('req_ok');
    await docs.forget('req_stuck');
    expect(readdirSync(dirs.work)).toEqual(['req_ok.pdf']);
    expect(readdirSync(dirs.results)).toEqual([]);
    // Work of no request (a crash's leftover, removed at start) is not remembered for a retention
    // that will never come: a later forget of that id looks again.
    writeFileSync(join(dirs.work, 'req_orphan.pdf'), 'left by a crash');
    await docs.releaseWork('req_orphan', { remember: false });
    writeFileSync(join(dirs.work, 'req_orphan.pdf'), 'again');
    await docs.forget('req_orphan');
    expect(readdirSync(dirs.work)).toEqual(['req_ok.pdf']);
  });

  it('removes a result written for a request that will not be DONE (discardResult), and never rejects', async () => {
    const docs = new DocumentStore(dirs);
    await docs.writeResult('req_d', new TextEncoder().encode('%PDF signed'));
    await docs.discardResult('req_d');
    expect(existsSync(docs.resultPath('req_d'))).toBe(false);
    await expect(docs.discardResult('req_d')).resolves.toBeUndefined();
  });
});
