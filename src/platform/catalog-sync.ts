import type { CachedCredential, CachedDesign, CatalogCache, SkippedEntry } from '../store/catalog-types';
import { describeSkipped, screenCatalog } from './catalog-screen';

export interface FetchedCatalog {
  credentials: CachedCredential[];
  designs: CachedDesign[];
  /** Entries the source itself left out (a chip credential whose key this machine lacks). */
  skipped?: SkippedEntry[];
}

export interface CatalogSource {
  fetchCatalog(): Promise<FetchedCatalog>;
}

/**
 * `sync` and POST /v1/sync: fetch the whole catalogue first, then replace the cache in one atomic
 * write, so a failing platform or chip leaves the old cache in place (CONTRACT: 502, old cache stays).
 * Each entry is checked on the way (catalog-screen.ts): one that does not read is left out, named
 * in the cache's `skipped` (what the sync answers) and in the log, and the others are served.
 */
export async function syncCatalog(o: {
  source: CatalogSource;
  write: (cache: CatalogCache) => void;
  now: Date;
  /** Where a sync says what it left out (the service log). */
  warn?: (message: string) => void;
}): Promise<CatalogCache> {
  const fetched = await o.source.fetchCatalog();
  const screened = screenCatalog(fetched);
  const skipped = [...(fetched.skipped ?? []), ...screened.skipped];
  for (const s of skipped) o.warn?.(describeSkipped(s));
  const cache: CatalogCache = {
    credentials: screened.credentials,
    designs: screened.designs,
    synced_at: o.now.toISOString(),
    ...(skipped.length > 0 ? { skipped } : {}),
  };
  o.write(cache);
  return cache;
}
