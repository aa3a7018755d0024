import type { Chip, ChipSettings } from '../../chip/types';
import { chipPinFlags } from '../embedded-catalog';
import { addressFromPublicKey } from '../../evm';
import type { CachedCredential, SkippedEntry } from '../../store/catalog-types';
import type { CatalogSource, FetchedCatalog } from '../catalog-sync';
import type { RemotePlatform } from './client';

/**
 * The remote platform's catalogue, with each `engine: "chip"` credential bound to its key on this
 * machine's PKCS#11 token by `chip_key_id` (PLATFORM.md "Catalogue"). A chip credential whose key
 * this machine does not hold (another machine's token, no chip configured, a key that does not
 * match the credential) is left out of the cache and named (catalog-sync.ts logs it), so it is a clear 422 "not a
 * known credential" rather than an ERROR at signing time.
 */
export class RemoteCatalog implements CatalogSource {
  constructor(
    private readonly platform: RemotePlatform,
    /** This machine's chip and its settings, when one is set up. */
    private readonly chip: { open: () => Promise<Chip>; settings: ChipSettings } | null,
  ) {}

  async fetchCatalog(): Promise<FetchedCatalog> {
    const { credentials, designs } = await this.platform.fetchCatalog();
    const wantsChip = credentials.some((c) => c.engine === 'chip');
    const keys = wantsChip && this.chip ? await (await this.chip.open()).listKeys() : null;
    const bound: CachedCredential[] = [];
    const skipped: SkippedEntry[] = [];
    for (const c of credentials) {
      if (c.engine !== 'chip') {
        bound.push(c);
        continue;
      }
      const key = keys?.find((k) => k.id === c.chip_key_id);
      const problem = !keys
        ? 'no chip is configured on this machine (init --platform … --chip-module)'
        : !key
          ? `the chip holds no key with id ${c.chip_key_id}`
          : c.type === 'evm' && (key.algorithm !== 'secp256k1' || addressFromPublicKey(key.publicKey).toLowerCase() !== c.address!.toLowerCase())
            ? `the chip key ${c.chip_key_id} is not the key of address ${c.address}`
            : c.type === 'pades' && key.algorithm === 'secp256k1'
              ? `the chip key ${c.chip_key_id} is a secp256k1 key, not a PAdES signing key`
              : null;
      if (problem) {
        skipped.push({ credential_key: c.credential_key, name: c.name, reason: problem });
        continue;
      }
      const flags = chipPinFlags(key!, this.chip!.settings);
      bound.push(c.type === 'evm' ? { ...c, public_key_hex: Buffer.from(key!.publicKey).toString('hex'), ...flags } : { ...c, ...flags });
    }
    return { credentials: bound, designs, skipped };
  }
}
