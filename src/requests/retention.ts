import type { RequestStore } from '../store/request-store';

/**
 * CONTRACT: results are kept 7 days or 10,000 results, whichever is less. Oldest go first;
 * PENDING requests are never dropped here (the timeout ends them first).
 */
export async function applyRetention(store: RequestStore, o: { now: Date; maxAgeMs: number; maxResults: number; forget: (id: string) => void | Promise<void> }): Promise<number> {
  const entries = store.oldest();
  const cutoff = o.now.getTime() - o.maxAgeMs;
  const excess = entries.length - o.maxResults;
  const drop: string[] = [];
  for (let i = 0; i < entries.length; i += 1) {
    const e = entries[i]!;
    const tooMany = i < excess;
    const tooOld = Date.parse(e.createdAt) < cutoff;
    if (!tooMany && !tooOld) break; // creation order: everything after is newer
    if (e.status !== 'PENDING') drop.push(e.requestId);
  }
  await store.remove(drop);
  // The journal first: a crash in between leaves files of no request, never a request without its files.
  await Promise.all(drop.map((id) => o.forget(id)));
  return drop.length;
}
