import { SigningError } from '../errors/errors';
import type { RequestStore } from '../store/request-store';
import type { RequestRegistry } from './registry';

/**
 * After a crash or restart no request stays PENDING (issue 2): each one is handed back to the
 * runner (its inputs are in the journal, a PAdES document in work/), or set to ERROR with a clear
 * message when its inputs did not survive. The runner's timeout ends those that ran out of time.
 */
export async function recoverPending(o: {
  store: RequestStore;
  registry: RequestRegistry;
  hasWorkFile: (requestId: string) => boolean;
  resume: (entry: ReturnType<RequestStore['pending']>[number]) => void;
  /** Ids of documents in work/; those of no PENDING request are left from a crash and removed. */
  workFiles?: { list: () => string[]; remove: (requestId: string) => void };
}): Promise<{ resumed: number; failed: number }> {
  let resumed = 0;
  let failed = 0;
  if (o.workFiles) {
    for (const id of o.workFiles.list()) {
      if (o.store.get(id)?.status !== 'PENDING') o.workFiles.remove(id);
    }
  }
  for (const entry of o.store.pending()) {
    if (entry.kind === 'pades' && !o.hasWorkFile(entry.request_id)) {
      await o.registry.fail(entry.request_id, new SigningError('the service restarted and the document of this request was not on disk; submit it again'));
      failed += 1;
    } else {
      o.resume(entry);
      resumed += 1;
    }
  }
  return { resumed, failed };
}
