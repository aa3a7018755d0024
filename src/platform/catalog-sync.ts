import type { CatalogCache } from '../store/catalog-types';

export interface CatalogSource {
  fetchCatalog(): Promise<Pick<CatalogCache, 'credentials' | 'designs'>>;
}

/**
 * `sync` and POST /v1/sync: fetch the whole catalogue first, then replace the cache in one atomic
 * write, so a failing platform or chip leaves the old cache in place (CONTRACT: 502, old cache stays).
 */
export async function syncCatalog(o: {
  source: CatalogSource;
  write: (cache: CatalogCache) => void;
  now: Date;
}): Promise<CatalogCache> {
  const fetched = await o.source.fetchCatalog();
  const cache: CatalogCache = { credentials: fetched.credentials, designs: fetched.designs, synced_at: o.now.toISOString() };
  o.write(cache);
  return cache;
}
