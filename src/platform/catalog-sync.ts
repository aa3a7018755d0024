import { LocalsignError } from '../errors/errors';
import type { CatalogCache } from '../store/catalog-types';

export interface CatalogSource {
  fetchCatalog(): Promise<Pick<CatalogCache, 'credentials' | 'designs'>>;
}

/**
 * `sync` and POST /v1/sync: fetch the whole catalogue first, then replace the cache in one atomic
 * write, so a failing platform or chip leaves the old cache in place (CONTRACT: 502, old cache stays).
 */
export async function syncCatalog(o: {
  source: CatalogSource | null;
  write: (cache: CatalogCache) => void;
  now: Date;
}): Promise<CatalogCache> {
  if (!o.source) throw new LocalsignError('not_paired', 'this machine is not paired with a platform; run `localsign init`');
  const fetched = await o.source.fetchCatalog();
  const cache: CatalogCache = { credentials: fetched.credentials, designs: fetched.designs, synced_at: o.now.toISOString() };
  o.write(cache);
  return cache;
}
