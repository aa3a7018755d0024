import { DocumentLimitError } from '../domain/errors';
import type { SigningCheck } from '../pades/sign';
import type { ValidationData, VriEntry } from '../pades/sign';
import type { PreparedDocTimestamp } from '../pades/sign';
import type { PadesPrepareInput, PreparedPades } from '../pades/sign';
import type { StampSpec } from '../domain/pades';
import type { DocumentBytes } from '../store/file-bytes';
import type { ValidateOptions, ValidationReport } from '../pades/validate';
import type { DocumentResult, DocumentResults, DocumentTask, PostedDocumentTask } from './document-tasks';
import type { ProcessEntry } from './entry';
import { processStarter } from './handles';
import { fromFiles, removeFiles, removePartials, toFiles } from './large-bytes';
import { WorkerPool } from './pool';
import { Slots } from './slots';

/** A prepare's input with its document as bytes or a file (the work file of a large one). */
export type PrepareDocument = Omit<PadesPrepareInput, 'pdf'> & { pdf: DocumentBytes };
/** A prepared signature whose document may wait in the worker's file. */
export type PreparedDocument = Omit<PreparedPades, 'pdf'> & { pdf: DocumentBytes };
/** A prepared document timestamp whose document may wait in the worker's file. */
export type PreparedTimestampDocument = Omit<PreparedDocTimestamp, 'pdf'> & { pdf: DocumentBytes };

export interface DocumentLimits {
  /** PDF worker processes. */
  workers: number;
  /** V8 heap of each worker process, MiB. */
  heapMb: number;
  /** Time one step on one document may take, ms. */
  deadlineMs: number;
  /** Validations running at once (each may hold a worker up to the deadline). */
  verifications: number;
  /** Where large documents wait for the other side (the config dir's work/ folder for the service). */
  scratchDir: () => string;
}

/**
 * The one way the service reads or writes a PDF: every step runs in a PDF worker
 * process with a heap limit and a deadline, so a hostile document ends its own worker with a 422
 * naming the limit, never the service or another caller's request (handles.ts says why processes
 * and not threads). Large documents cross through files (large-bytes.ts).
 */
export class DocumentWork {
  private readonly pool: WorkerPool<PostedDocumentTask, DocumentResult>;
  /**
   * Verification is open to any document from anyone with a key: at most this many run at once,
   * so signing always finds a worker (the pool has more workers than this, when it has two).
   */
  private readonly verifications: Slots;
  private readonly inline: boolean;
  /** Whose tasks these are, for the pool's turns between applications (forOwner); '' the service's own. */
  private readonly owner: string = '';

  constructor(entry: ProcessEntry | null, readonly limits: DocumentLimits) {
    const seconds = Math.round(limits.deadlineMs / 100) / 10;
    this.inline = entry === null;
    this.pool = new WorkerPool<PostedDocumentTask, DocumentResult>({
      name: 'PDF worker',
      workers: limits.workers,
      // A worker ended while it wrote a large answer leaves a .part file: removed when it has exited.
      start: entry ? processStarter(entry, { heapMb: limits.heapMb, scratchDir: limits.scratchDir, exited: (pid) => void removePartials(limits.scratchDir(), pid) }) : null,
      // Loaded on first use: the engine (pdf-lib, fontkit) is not part of start-up.
      inline: async (task) => (await import('./document-tasks')).runDocumentTask(task),
      // One task at a time per worker: a task over a limit ends its worker, and nothing else
      // should be waiting inside it (tasks posted behind it would be posted again, but late).
      depth: 1,
      // As many again for applications with nothing running while the workers are busy with
      // others' documents: one application's slow documents (each may hold a worker until the
      // deadline) never hold another's small one.
      burst: limits.workers,
      // The service keeps one ready (keepWarm): a person's first signature after start, or after a
      // day idle, finds the engine loaded.
      keep: 1,
      warmTask: () => ({ op: 'warm', scratch: limits.scratchDir() }),
      tidyTask: () => ({ op: 'collect', scratch: limits.scratchDir() }),
      limits: {
        deadlineMs: limits.deadlineMs,
        overLimit: (limit) =>
          new DocumentLimitError(
            limit === 'time'
              ? `document too complex: processing it took longer than ${seconds} s (the per-document time limit)`
              : `document too complex: processing it needed more than ${limits.heapMb} MiB (the per-document memory limit)`,
          ),
      },
    });
    this.verifications = new Slots(Math.max(1, limits.verifications));
  }

  /** The PDF workers the configuration asks for (`Config.documents`). */
  static fromConfig(documents: { workers: number; timeLimitMs: number; memoryLimitMb: number }, entry: ProcessEntry | null, scratchDir: () => string): DocumentWork {
    return new DocumentWork(entry, { workers: documents.workers, heapMb: documents.memoryLimitMb, deadlineMs: documents.timeLimitMs, verifications: documents.workers - 1, scratchDir });
  }

  /**
   * Runs one task. Large documents go to the worker in files (or as the files they already are);
   * a large answer is read back, unless `keep`: then it stays in the worker's file, which the
   * caller hands on to the next step or the store (and removes if it does neither).
   */
  private async call<K extends DocumentTask['op']>(task: Extract<DocumentTask, { op: K }>, o: { signal?: AbortSignal; keep?: boolean } = {}): Promise<DocumentResults[K]> {
    if (this.inline) return (await this.pool.run({ ...task, scratch: null } as PostedDocumentTask, { signal: o.signal, owner: this.owner })) as DocumentResults[K];
    const scratch = this.limits.scratchDir();
    const { value, files } = await toFiles(task as DocumentTask, scratch);
    try {
      const answer = await this.pool.run({ ...value, scratch }, { signal: o.signal, owner: this.owner });
      return (o.keep ? answer : await fromFiles(answer)) as DocumentResults[K];
    } finally {
      await removeFiles(files);
    }
  }

  /** The same work with its tasks counted as `owner`'s (an application key) in the pool's turns. */
  forOwner(owner: string): DocumentWork {
    return Object.assign(Object.create(this) as DocumentWork, { owner });
  }

  /**
   * The sign route's check before the 202 (CONTRACT: a bad PDF is a 422, never an async ERROR),
   * with the stamp's position it decided, for the job to carry to prepare.
   */
  checkForSigning(pdf: DocumentBytes, stamp: StampSpec | null, certify: 1 | 2 | 3 | null = null): Promise<SigningCheck> {
    return this.call({ op: 'sign-check', pdf: pdf as Uint8Array, stamp, certify });
  }

  /**
   * The check before the 202 and prepare as one task (one trip to a PDF worker and one
   * reading of the document fewer per request). For documents held as bytes (the small ones):
   * the prepared document comes back as bytes too.
   */
  async checkAndPrepare(input: Omit<PadesPrepareInput, 'placement'>, stamp: StampSpec | null): Promise<{ check: SigningCheck; prepared: PreparedDocument }> {
    return this.call({ op: 'sign-check-prepare', input: { ...input, placement: null }, stamp });
  }

  /**
   * The signing steps take and give documents as bytes or files: a large one stays in files from
   * the work file to the result, read by the workers and never by the service (the 100 MB path).
   */
  prepare(input: PrepareDocument, signal?: AbortSignal): Promise<PreparedDocument> {
    return this.call({ op: 'prepare', input: input as PadesPrepareInput }, { signal, keep: true }) as Promise<PreparedDocument>;
  }

  /** Finishes and reads the signature back (CONTRACT: verified before DONE). */
  finish(prepared: PreparedDocument, signatureValue: Uint8Array, timestampToken: Uint8Array | null, signal?: AbortSignal): Promise<DocumentBytes> {
    return this.call({ op: 'finish', prepared: prepared as PreparedPades, signatureValue, timestampToken }, { signal, keep: true });
  }

  /** The DSS update of B-LT. */
  addDss(pdf: DocumentBytes, global: ValidationData, vri: VriEntry[], signal?: AbortSignal): Promise<DocumentBytes> {
    return this.call({ op: 'add-dss', pdf: pdf as Uint8Array, global, vri }, { signal, keep: true });
  }

  prepareDocTimestamp(pdf: DocumentBytes, signal?: AbortSignal): Promise<PreparedTimestampDocument> {
    return this.call({ op: 'prepare-doc-timestamp', pdf: pdf as Uint8Array }, { signal, keep: true }) as Promise<PreparedTimestampDocument>;
  }

  finishDocTimestamp(prepared: PreparedTimestampDocument, token: Uint8Array, signal?: AbortSignal): Promise<DocumentBytes> {
    return this.call({ op: 'finish-doc-timestamp', prepared: prepared as PreparedDocTimestamp, token }, { signal, keep: true });
  }

  /** Local validation of `pdf` (bytes, or a file: the long-term read-back of a large result). */
  validate(pdf: DocumentBytes, options: ValidateOptions, signal?: AbortSignal): Promise<ValidationReport> {
    return this.call({ op: 'validate', pdf: pdf as Uint8Array, options }, { signal });
  }

  /** Runs `fn` (one verification, its validations) within the bound on verifications at once. */
  async verification<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.verifications.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Workers running now. */
  get size(): number {
    return this.pool.size;
  }

  /** Each idle PDF worker collects what a burst left (WorkerPool.tidy). */
  tidy(): void {
    this.pool.tidy();
  }

  /** Keeps one PDF worker started and warm from now on (the service; not a one-off CLI verify). */
  keepWarm(): void {
    this.pool.keepWarm();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
