import type { Chip } from '../chip/types';
import type { JsonCollection } from '../store/json-collection';
import type { CatalogSource } from './catalog-sync';
import { buildEmbeddedCatalog } from './embedded-catalog';
import { assignCredentialKeys, type ChipSettings, type EmbeddedConfig } from './embedded-config';

/**
 * The embedded platform (tenant 0): credentials are the keys on the local chip, designs live in
 * the config dir. `sync` re-reads both.
 */
export class EmbeddedPlatform implements CatalogSource {
  constructor(
    private readonly file: JsonCollection<EmbeddedConfig>,
    private readonly openChip: (settings: ChipSettings) => Promise<Chip>,
  ) {}

  async fetchCatalog() {
    const cfg = this.file.get();
    const chip = await this.openChip(cfg.chip);
    const keys = await chip.listKeys();
    const credentials = assignCredentialKeys(this.file, keys);
    return buildEmbeddedCatalog(keys, { ...this.file.get(), credentials });
  }
}
