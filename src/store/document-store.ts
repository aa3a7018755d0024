import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { stat, unlink } from 'node:fs/promises';
import { adoptFileAtomicAsync, readFileIfExistsAsync, writeFileAtomicAsync } from './atomic-file';
import { FILE_MIN_BYTES, isFileBytes, type DocumentBytes, type FileBytes } from './file-bytes';
import { openNoFollow } from './no-follow';

/**
 * Documents up to this size stay in memory between accept and signing. A larger one stays in memory
 * only while its job can start at once (`spill` otherwise): reading 100 MB back from disk cost the
 * job 0.3 s (on a 2-core machine), and a burst of large documents must not all wait in memory.
 */
const HOLD_IN_MEMORY_MAX = 16 * 1024 * 1024;

/**
 * A document up to this size is made durable in its request's PENDING record (request-store.ts
 * `inputs`), not in a work file of its own: one fsync for both instead of two, and the file's
 * creation, rename and removal gone. Creating a file is the dear part: on the 2-core VM, from
 * 0.01 to 0.6 ms of CPU in the kernel depending on where ext4 placed the folder, against 0.15 ms
 * for a journal line with its fdatasync; the service's CPU per small PDF went from 7.3 to 6.1 ms
 * (`BENCH_AGAINST=<the build before> node test/bench/run.mjs ab`). Larger documents keep their
 * work file: the journal holds a document as base64 until its request is final, and is read
 * whole at start.
 */
export const JOURNALED_INPUT_MAX = 16 * 1024;

/** A prepared PAdES signature waiting for a remote signature value (survives restarts). */
export interface PreparedRecord {
  /** JSON-safe description of the prepared state (offsets, signed attributes, chain, digest). */
  meta: Record<string, unknown>;
  /** The prepared output PDF (placeholders in place): its bytes, or a file a PDF worker wrote. */
  pdf: DocumentBytes;
}

/**
 * The one owner of a request's document bytes for their whole life:
 * - the input, from accept to the end of its job: held in memory when small, so the job needs no
 *   disk read, and durable so a restart can resume it: a small one in its request's PENDING record
 *   (JOURNALED_INPUT_MAX), a larger one in `work/<id>.pdf`;
 * - a prepared document waiting for a remote signature (`work/<id>.prepared.pdf` + `.json`): a
 *   platform may take minutes and the service may restart meanwhile, and preparing again would
 *   change the digest the platform is signing;
 * - the signed result (`results/<id>.pdf`) until retention removes it.
 */
/**
 * unlink off the event loop (unlinkSync was 4 % of the service's main thread per small PDF,
 * measured on a 2-core machine), where a missing file is no error; says whether the file is gone.
 * Never rejects. A work file that could not be removed is tried again by retention (`forget`) and
 * at the next start (recovery removes the work of every request that is no longer PENDING); a
 * result retention could not remove stays in results/, a file of no request.
 */
async function removeIfPresent(path: string): Promise<boolean> {
  return unlink(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

export class DocumentStore {
  /**
   * Inputs in memory (see HOLD_IN_MEMORY_MAX). One of JOURNALED_INPUT_MAX or less is journaled with
   * its request and has no work file (`admit`, `restoreJournaled`): its size says so (`journaled`).
   */
  private readonly held = new Map<string, Buffer>();
  /**
   * Requests whose work files are known gone (`releaseWork` removed all of them), until retention
   * forgets them: its sweep then removes their result only. Looking again for the three work files
   * of every request it forgot was most of a sweep's file operations, on files long gone.
   */
  private readonly released = new Set<string>();
  /** Work files still being written: a spilled input is read back once its write has finished. */
  private readonly writing = new Map<string, Promise<unknown>>();
  /**
   * Results written from memory, until one turn of the event loop after their job's end
   * (`releaseWork`): the long polls that DONE wakes are answered with these bytes, without reading
   * back the file just written (an open, a stat, two reads and a close per small PDF). The job
   * holds the same bytes until then anyway; nothing is kept for a later caller, who reads the file.
   */
  private readonly fresh = new Map<string, Uint8Array>();

  constructor(private readonly dirs: { work: string; results: string }) {}

  private inputPath(id: string): string {
    return join(this.dirs.work, `${id}.pdf`);
  }

  private preparedPaths(id: string): { pdf: string; meta: string } {
    return { pdf: join(this.dirs.work, `${id}.prepared.pdf`), meta: join(this.dirs.work, `${id}.prepared.json`) };
  }

  resultPath(id: string): string {
    return join(this.dirs.results, `${id}.pdf`);
  }

  /**
   * Keeps an accepted document, readable at once. `written` settles when its work file is durable;
   * `journal`, when not null, is the document its request's PENDING record must carry instead (a
   * small one: JOURNALED_INPUT_MAX), and there is no work file. A document that arrived as a file
   * (`uploadPath`, the raw transport's large body) is adopted as the work file: synced and
   * renamed, not copied, and not held in memory.
   */
  admit(id: string, pdf: DocumentBytes): { written: Promise<void>; journal: Uint8Array | null } {
    if (isFileBytes(pdf)) {
      const adopted = adoptFileAtomicAsync(pdf.$file, this.inputPath(id));
      this.writing.set(id, adopted);
      return { written: adopted, journal: null };
    }
    this.held.set(id, Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
    if (this.journaled(id)) return { written: Promise.resolve(), journal: pdf };
    const written = writeFileAtomicAsync(this.inputPath(id), pdf);
    this.writing.set(id, written);
    return { written, journal: null };
  }

  /** After a restart: the documents journaled with PENDING requests (request-store.ts `journaledInputs`), for their jobs. */
  restoreJournaled(inputs: Iterable<[string, Buffer]>): void {
    for (const [id, pdf] of inputs) this.held.set(id, pdf);
  }

  /** The input of `id` is in its request's record, not in a work file (see `held`). */
  private journaled(id: string): boolean {
    const held = this.held.get(id);
    return held !== undefined && held.byteLength <= JOURNALED_INPUT_MAX;
  }

  /**
   * Where a large body is written as it arrives (read-body.ts readBodyToFile): in work/, ending in
   * .tmp, so a crash mid-upload leaves nothing the next start does not sweep (home-safety.ts).
   */
  uploadPath(): string {
    return join(this.dirs.work, `upload-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  }

  /** An upload no request took (refused, or the client went away): removed. Never rejects. */
  discardUpload(path: string): Promise<void> {
    return removeIfPresent(path).then(() => undefined);
  }

  /** The job of `id` waits for a slot: a large input waits on disk, not in memory. */
  spill(id: string): void {
    const held = this.held.get(id);
    if (held && held.length > HOLD_IN_MEMORY_MAX) this.held.delete(id);
  }

  /**
   * The input as a PDF worker should get it: the bytes when they are held in memory, else the
   * durable work file itself, which the worker reads (a large document is not read back into the
   * service only to be written out again for the worker).
   */
  async inputDocument(id: string): Promise<DocumentBytes | null> {
    const held = this.held.get(id);
    // A large one goes as its work file even while held: the worker would get it in a file anyway.
    if (held && held.byteLength < FILE_MIN_BYTES) return new Uint8Array(held.buffer, held.byteOffset, held.byteLength);
    await this.writing.get(id)?.catch(() => undefined);
    try {
      const { size } = await stat(this.inputPath(id));
      return { $file: this.inputPath(id), length: size } satisfies FileBytes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async readInput(id: string): Promise<Buffer | null> {
    const held = this.held.get(id);
    if (held) return held;
    await this.writing.get(id)?.catch(() => undefined);
    return readFileIfExistsAsync(this.inputPath(id));
  }

  hasInput(id: string): boolean {
    return this.held.has(id) || this.writing.has(id) || existsSync(this.inputPath(id));
  }

  /** Ids with an input or prepared document in work/ (to find what a crash left behind). */
  listWork(): string[] {
    const ids = new Set<string>();
    for (const f of readdirSync(this.dirs.work)) {
      const m = /^(req_[^.]+)\.(pdf|prepared\.pdf|prepared\.json)$/.exec(f);
      if (m) ids.add(m[1]!);
    }
    return [...ids];
  }

  /**
   * Writes the prepared state: the PDF first, then its description, so a description always has
   * its PDF. A PDF in a worker's file is adopted (synced and renamed, not copied). Returns where
   * the prepared PDF is now.
   */
  async savePrepared(id: string, record: PreparedRecord): Promise<DocumentBytes> {
    const paths = this.preparedPaths(id);
    let pdf = record.pdf;
    if (isFileBytes(pdf)) {
      await adoptFileAtomicAsync(pdf.$file, paths.pdf);
      pdf = { $file: paths.pdf, length: pdf.length };
    } else {
      await writeFileAtomicAsync(paths.pdf, pdf);
    }
    await writeFileAtomicAsync(paths.meta, new TextEncoder().encode(JSON.stringify(record.meta)));
    return pdf;
  }

  /** The prepared state kept for a restart; its PDF as the file it is (a PDF worker reads it). */
  async readPrepared(id: string): Promise<PreparedRecord | null> {
    const paths = this.preparedPaths(id);
    const meta = await readFileIfExistsAsync(paths.meta);
    if (!meta) return null;
    try {
      const { size } = await stat(paths.pdf);
      return { meta: JSON.parse(meta.toString('utf8')) as Record<string, unknown>, pdf: { $file: paths.pdf, length: size } };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /**
   * The job ended (DONE or ERROR): its input and prepared state are no longer needed. Only a
   * platform request has a prepared state (`prepared: false` skips looking for one: two failed
   * removals per small PDF were 3 % of the service's time on a 2-core machine). Settles once the
   * files are gone; never rejects (removeIfPresent). `remember: false` for the work of no request
   * (what a crash left, removed at start): retention never forgets such an id.
   */
  releaseWork(id: string, o: { prepared?: boolean; remember?: boolean } = {}): Promise<void> {
    // A journaled input has no work file (the request's final record ends it in the journal).
    const paths = this.journaled(id) ? [] : [this.inputPath(id)];
    this.held.delete(id);
    this.writing.delete(id);
    // After the long polls DONE woke have run to openResult (promise continuations, all before this).
    if (this.fresh.has(id)) setImmediate(() => this.fresh.delete(id));
    if (o.prepared !== false) paths.push(...Object.values(this.preparedPaths(id)));
    return Promise.all(paths.map(removeIfPresent)).then((gone) => {
      if (gone.every(Boolean) && o.remember !== false) this.released.add(id);
    });
  }

  /** The signed result, durably: its bytes written, or the file a PDF worker wrote adopted (not copied). */
  writeResult(id: string, doc: DocumentBytes): Promise<void> {
    if (isFileBytes(doc)) return adoptFileAtomicAsync(doc.$file, this.resultPath(id));
    this.fresh.set(id, doc);
    return writeFileAtomicAsync(this.resultPath(id), doc);
  }

  /** The signed result as a stream from disk (never whole in memory), with its size; null if gone. */
  async openResult(id: string): Promise<{ size: number; stream: Readable } | null> {
    // Only a DONE request's result is asked for, so these bytes are the ones on disk.
    const fresh = this.fresh.get(id);
    if (fresh) return { size: fresh.byteLength, stream: Readable.from([Buffer.from(fresh.buffer, fresh.byteOffset, fresh.byteLength)], { objectMode: false }) };
    let handle;
    try {
      // Never through a link (hardening: a results/<id>.pdf link would serve another file).
      handle = await openNoFollow(this.resultPath(id), 'read');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const { size } = await handle.stat();
    // 1 MiB reads: at the default 64 KiB a 100 MB result went out in 1,600 socket writes. A small
    // result is read in one buffer of its own size, not into a 1 MiB one.
    return { size, stream: handle.createReadStream({ highWaterMark: Math.min(1024 * 1024, Math.max(size, 1)) }) };
  }

  /** A result written for a request that will not be DONE (its PENDING record never became durable). Never rejects. */
  async discardResult(id: string): Promise<void> {
    this.fresh.delete(id);
    await removeIfPresent(this.resultPath(id));
  }

  /**
   * Retention: everything the request had on disk goes: its result, and its work files unless
   * this process saw them removed (a removal that failed is tried again here; after a restart,
   * recovery has swept the work files of every request that is not PENDING). Never rejects.
   */
  async forget(id: string): Promise<void> {
    const work = this.released.delete(id) ? Promise.resolve() : this.releaseWork(id).then(() => void this.released.delete(id));
    await Promise.all([work, this.discardResult(id)]);
  }
}
