/**
 * The PDF engine's work as plain-data tasks, run in the PDF worker processes (src/pdf-worker.ts,
 * started by document-work.ts), or inline on the calling thread when there are none (TypeScript
 * source under vitest). In the service every step that reads a document a caller sent runs in a
 * worker, never on the event loop: the sign route's check before the 202 (with prepare, for a
 * small document), prepare, finish with its read-back check, the long-term updates and local
 * validation.
 */
import { LocalsignError, PdfInputError } from '../domain/errors';
import { checkAndPreparePades, checkPdfForSigning, type SigningCheck } from '../pades/sign';
import { finishPades } from '../pades/sign';
import { preparePades, preparePadesParts } from '../pades/sign';
import { verifyPades } from '../pades/sign';
import { addDss, type ValidationData, type VriEntry } from '../pades/sign';
import { refuseCertifyingSigned } from '../pades/pdf';
import { finishDocTimestamp, prepareDocTimestamp, type PreparedDocTimestamp } from '../pades/sign';
import type { PadesPrepareInput, PreparedPades } from '../pades/sign';
import type { StampSpec } from '../domain/pades';
import { validatePdf, type ValidateOptions, type ValidationReport } from '../pades/validate';
import { isLimit, tooComplex } from '../pades/pdf';
import { FILE_MIN_BYTES, loadFilesSync, savePartsSync, saveFilesSync } from './large-bytes';
import { ReusedBuffers } from './reused-buffers';
import type { TaskQueue } from './serve-worker';
import { fullCollection } from '../config/full-collection';
import { warmUpEngine } from './warm-up';

/**
 * A task as posted: large byte arrays arrive as files (large-bytes.ts), and `scratch` is where
 * large answers are written; null when the task runs inline.
 */
export type PostedDocumentTask = DocumentTask & { scratch: string | null };

export type DocumentTask =
  | { op: 'sign-check'; pdf: Uint8Array; stamp: StampSpec | null; certify: 1 | 2 | 3 | null }
  | { op: 'prepare'; input: PadesPrepareInput }
  | { op: 'sign-check-prepare'; input: PadesPrepareInput; stamp: StampSpec | null }
  | { op: 'finish'; prepared: PreparedPades; signatureValue: Uint8Array; timestampToken: Uint8Array | null }
  | { op: 'validate'; pdf: Uint8Array; options: ValidateOptions }
  | { op: 'add-dss'; pdf: Uint8Array; global: ValidationData; vri: VriEntry[] }
  | { op: 'prepare-doc-timestamp'; pdf: Uint8Array }
  | { op: 'finish-doc-timestamp'; prepared: PreparedDocTimestamp; token: Uint8Array }
  /** A worker started ahead of need does its first-time work (warm-up.ts). */
  | { op: 'warm' }
  /** The service is idle after a burst: what the burst left is collected (WorkerPool.tidy). */
  | { op: 'collect' };

/** What each task answers. */
export interface DocumentResults {
  'sign-check': SigningCheck;
  prepare: PreparedPades;
  'sign-check-prepare': { check: SigningCheck; prepared: PreparedPades };
  finish: Uint8Array;
  validate: ValidationReport;
  'add-dss': Uint8Array;
  'prepare-doc-timestamp': PreparedDocTimestamp;
  'finish-doc-timestamp': Uint8Array;
  /** `skipped`: a task came while the engine loaded, and it went first (run, below). */
  warm: { ms: number; skipped?: true };
  collect: null;
}
export type DocumentResult = DocumentResults[keyof DocumentResults];

/**
 * Errors of the engine as the caller should see them: an exhausted engine structure (a Map over
 * its maximum size, an array or string too long, a stack too deep: all RangeError) is the
 * document's fault, a 422, never a 500 (a 318-byte xref stream must not answer 500).
 */
function asDocumentError(error: unknown): unknown {
  if (error instanceof LocalsignError) return error;
  if (error instanceof RangeError) return tooComplex(error.message, error);
  return error;
}

/**
 * Validation of any document, damaged ones included (CONTRACT: a `200` report for a PDF
 * it cannot fully read): its readers recover broken cross-reference data and name the damage as a
 * problem of the document; a PDF that cannot be read even so is a report of no signatures saying
 * why. A document over a limit (TooComplexError, a RangeError of an exhausted structure) stays a
 * refusal, a 422 naming the limit, and so does the pool's time or memory limit.
 */
function validateDocument(pdf: Uint8Array, options: ValidateOptions): ValidationReport {
  const damage: string[] = [];
  try {
    return validatePdf(pdf, { ...options, damage });
  } catch (error) {
    if (isLimit(error) || (error instanceof LocalsignError && !(error instanceof PdfInputError))) throw error;
    return { valid: false, signatures: [], problems: [...damage, `the PDF cannot be read: ${(error as Error).message}`] };
  }
}

/** In a worker process: where large answers go. Null inline. */
interface InWorker {
  scratch: string;
}

async function run(task: DocumentTask, worker: InWorker | null, queue: TaskQueue | null): Promise<DocumentResult> {
  switch (task.op) {
    case 'sign-check': {
      const info = checkPdfForSigning(task.pdf, task.stamp);
      if (task.certify) refuseCertifyingSigned(info.signatureCount);
      return info;
    }
    case 'prepare': {
      if (worker && task.input.pdf.length >= FILE_MIN_BYTES) {
        // A large document and its update go to the prepared file one after the other: the worker
        // never holds a copy of the input. The answer names that file, as saveFilesSync's do.
        const { tail, ...prepared } = await preparePadesParts(task.input);
        return { ...prepared, pdf: savePartsSync([task.input.pdf, tail], worker.scratch) as unknown as Uint8Array };
      }
      return preparePades(task.input);
    }
    case 'sign-check-prepare':
      // `stamp` is the design's box the check places; the input's stamp is the one drawn (its text filled).
      return checkAndPreparePades(task.input, task.stamp);
    case 'finish': {
      // The prepared bytes are this task's own copy: signed in place.
      const signed = finishPades(task.prepared, task.signatureValue, { timestampToken: task.timestampToken, inPlace: true });
      // CONTRACT "Before DONE the service verifies the signature it produced".
      verifyPades(signed);
      return signed;
    }
    case 'validate':
      return validateDocument(task.pdf, task.options);
    case 'add-dss':
      return addDss(task.pdf, task.global, task.vri);
    case 'prepare-doc-timestamp':
      return prepareDocTimestamp(task.pdf);
    case 'finish-doc-timestamp':
      return finishDocTimestamp(task.prepared, task.token);
    case 'collect':
      fullCollection()?.();
      return null;
    case 'warm': {
      // A request that came while this worker loaded the engine (the first signature at once after
      // a start) is not kept waiting for a throwaway signature: it goes first, and runs the same
      // code for the first time itself. One turn of the event loop lets its message be read.
      if (queue) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (queue.waiting() > 0) return { ms: 0, skipped: true };
      }
      const done = await warmUpEngine();
      // What the warm-up allocated is garbage now: collected, so the worker waits small.
      fullCollection()?.();
      return done;
    }
  }
}

/**
 * A worker's large buffers (a document read from its file), kept for the next task up to this size
 * each. A 100 MB document is read three times (the check, prepare, finish): into fresh memory each
 * read cost about 300 ms of page faults (measured on a 2-core machine). What a worker keeps is not
 * counted against its retire limit (pdf-worker.ts; handles.ts PDF_WORKER_RETIRE_ABOVE_MB), and a
 * buffer no task took for KEEP_UNUSED_MS is let go (dropLater), which gives it back.
 */
const KEEP_AT_MOST = 128 * 1024 * 1024;
const kept = new ReusedBuffers(KEEP_AT_MOST);
/**
 * A kept buffer no task took for this long is let go. The tasks of one request (the check, prepare,
 * finish) come within seconds of each other, and a script that signs large documents one after
 * another, each in a few seconds, keeps finding its buffer; a worker that goes on with small
 * documents only gives it back within twice this. With 5 s, `node test/bench/run.mjs compare`
 * (our 100 MB run, then @signpdf's of 6 to 7 s) lost the buffer between our runs.
 */
const KEEP_UNUSED_MS = 15_000;
let dropTimer: ReturnType<typeof setTimeout> | null = null;

/**
 * While buffers are kept, a look every KEEP_UNUSED_MS lets go of those gone unused (a timer that
 * holds no process open); tasks meanwhile do not postpone it. What was let go is collected at
 * once: until V8 collects it, its memory is still the process's, and the next large document
 * would be read into new memory beside it.
 */
function dropLater(): void {
  if (dropTimer || kept.heldBytes() === 0) return;
  dropTimer = setTimeout(() => {
    dropTimer = null;
    if (kept.dropUnused(Date.now(), KEEP_UNUSED_MS)) fullCollection()?.();
    dropLater();
  }, KEEP_UNUSED_MS);
  dropTimer.unref?.();
}

/** What the kept buffers hold between tasks (for tests). */
export function keptBufferBytes(): number {
  return kept.heldBytes();
}

/** Runs one posted task: its files read first, its large answer written to `scratch`. */
export async function runDocumentTask(posted: PostedDocumentTask, queue: TaskQueue | null = null): Promise<DocumentResult> {
  // In a worker (a scratch folder), every large answer is written before the task ends, so the
  // kept buffers can serve the next task; inline, the caller holds the answer: new buffers.
  const worker = posted.scratch === null ? null : { scratch: posted.scratch };
  if (worker) kept.startTask();
  // Files are read whichever way the task came: inline too, a large input is its work file (only
  // arrays of FILE_MIN_BYTES or more travel as files, so every reading is a large one).
  const { scratch, ...task } = loadFilesSync(posted, worker ? (size) => kept.take(size) : undefined);
  try {
    const result = await run(task as DocumentTask, worker, queue);
    return scratch === null ? result : saveFilesSync(result, scratch);
  } catch (error) {
    throw asDocumentError(error);
  } finally {
    if (worker) dropLater();
  }
}
