import { DocumentWork } from '../../src/workers/document-work';

/** The PDF work on the test's own thread, as tests from TypeScript source run it (no worker, no limits). */
export function inlineDocumentWork(): DocumentWork {
  return new DocumentWork(null, { workers: 1, heapMb: 256, deadlineMs: 60_000, verifications: 1, scratchDir: () => { throw new Error('inline work needs no scratch dir'); } });
}
