import { rm } from 'node:fs/promises';
import { isFileBytes, type DocumentBytes } from '../store/file-bytes';

/** Removes a document's file, when it is one (a file already adopted or gone is no error). */
export async function removeStepFile(doc: DocumentBytes): Promise<void> {
  if (isFileBytes(doc)) await rm(doc.$file, { force: true });
}

/**
 * The files the steps of one signing job made (a PDF worker's output for a large document):
 * each is removed once the next step has made its own; the last is kept to become the
 * result; whatever is left when the job fails is removed.
 */
export class StepFiles {
  private readonly owned = new Set<string>();

  /** Records the document a step made, and hands it back. */
  made<T extends DocumentBytes>(doc: T): T {
    if (isFileBytes(doc)) this.owned.add(doc.$file);
    return doc;
  }

  /** A step's document is no longer needed (the next step made its own). */
  async done(doc: DocumentBytes): Promise<void> {
    if (!isFileBytes(doc) || !this.owned.delete(doc.$file)) return;
    await rm(doc.$file, { force: true });
  }

  /** The document that becomes the result: no longer this job's to remove. */
  keep(doc: DocumentBytes): void {
    if (isFileBytes(doc)) this.owned.delete(doc.$file);
  }

  /** The job failed: every file it still owns goes. */
  async discard(): Promise<void> {
    await Promise.all([...this.owned].map((f) => rm(f, { force: true })));
    this.owned.clear();
  }
}
