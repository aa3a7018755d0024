import type { Chip, ChipSettings } from '../../chip/types';
import { chipPinFlags } from '../embedded-catalog';
import type { CachedCredential, SkippedEntry } from '../../store/catalog-types';
import type { CatalogSource, FetchedCatalog } from '../catalog-sync';
import type { RemotePlatform } from './client';
import type { CatalogueRules } from './wire';

/**
 * The remote platform's catalogue, with each credential of an engine whose keys are on this
 * machine's chip bound to its key by `chip_key_id` (PLATFORM.md "Catalogue"; its type says which
 * keys can be its: CredentialTypeRules `bindChipKey`). A chip credential whose key
 * this machine does not hold (another machine's token, no chip configured, a key that does not
 * match the credential) is left out of the cache and named (catalog-sync.ts logs it), so it is a clear 422 "not a
 * known credential" rather than an ERROR at signing time.
 */
export class RemoteCatalog implements CatalogSource {
  constructor(
    private readonly platform: RemotePlatform,
    /** This machine's chip and its settings, when one is set up. */
    private readonly chip: { open: () => Promise<Chip>; settings: ChipSettings } | null,
    private readonly rules: CatalogueRules,
  ) {}

  async fetchCatalog(): Promise<FetchedCatalog> {
    const { credentials, designs } = await this.platform.fetchCatalog();
    const onChip = (c: CachedCredential) => this.rules.engines.get(c.engine)?.onChip === true;
    const keys = credentials.some(onChip) && this.chip ? await (await this.chip.open()).listKeys() : null;
    const bound: CachedCredential[] = [];
    const skipped: SkippedEntry[] = [];
    for (const c of credentials) {
      if (!onChip(c)) {
        bound.push(c);
        continue;
      }
      const key = keys?.find((k) => k.id === c.chip_key_id);
      const binding = !keys
        ? { problem: 'no chip is configured on this machine (init --platform … --chip-module)' }
        : !key
          ? { problem: `the chip holds no key with id ${c.chip_key_id}` }
          : this.rules.types.get(c.type)!.bindChipKey(c, key);
      if ('problem' in binding) {
        skipped.push({ credential_key: c.credential_key, name: c.name, reason: binding.problem });
        continue;
      }
      bound.push({ ...c, ...binding.fields, ...chipPinFlags(key!, this.chip!.settings) });
    }
    return { credentials: bound, designs, skipped };
  }
}
