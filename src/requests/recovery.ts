import { LocalsignError, SigningError } from '../domain/errors';
import { attemptsOf, type RequestEntry, type RequestStore } from '../store/request-store';
import { mayResume } from './lifecycle';
import type { RequestRegistry } from './registry';

/** The ERROR of a request whose resumed run a crash cut short too. */
export const STOPPED_WHILE_SIGNING = 'the service stopped while signing this request';

/**
 * After a crash or restart no request stays PENDING: each one is handed back to the
 * runner (its inputs are in the journal, a PAdES document in work/), or set to ERROR with a clear
 * message when its inputs did not survive, or when a crash already cut short its one more try
 * (lifecycle.ts MAX_ATTEMPTS: a request that takes the process down must not do so at every
 * start). The runner's timeout ends those that ran out of time.
 */
export async function recoverPending(o: {
  store: RequestStore;
  registry: RequestRegistry;
  hasWorkFile: (requestId: string) => boolean;
  /** Whether a request's kind keeps its document on disk (its kind's table: signing/kinds/). */
  holdsDocument: (entry: RequestEntry) => boolean;
  resume: (entry: ReturnType<RequestStore['pending']>[number]) => void;
  /** Ids of documents in work/; those of no PENDING request are left from a crash and removed. */
  workFiles?: { list: () => string[]; remove: (requestId: string) => void | Promise<void> };
}): Promise<{ resumed: number; failed: number }> {
  let resumed = 0;
  let failed = 0;
  if (o.workFiles) {
    const leftovers = o.workFiles.list().filter((id) => o.store.get(id)?.status !== 'PENDING');
    await Promise.all(leftovers.map((id) => o.workFiles!.remove(id)));
  }
  // Failures are written side by side (the journal commits them as one batch).
  const failing: Promise<unknown>[] = [];
  for (const entry of o.store.pending()) {
    if (!mayResume(attemptsOf(entry))) {
      const id = entry.requestId;
      failing.push(o.registry.fail(id, new LocalsignError('internal', STOPPED_WHILE_SIGNING, { type: 'interrupted' })).then(() => o.holdsDocument(entry) && o.workFiles?.remove(id)));
      failed += 1;
    } else if (o.holdsDocument(entry) && !o.hasWorkFile(entry.requestId)) {
      failing.push(o.registry.fail(entry.requestId, new SigningError('the service restarted and the document of this request was not on disk; submit it again')));
      failed += 1;
    } else {
      o.resume(entry);
      resumed += 1;
    }
  }
  await Promise.all(failing);
  return { resumed, failed };
}
