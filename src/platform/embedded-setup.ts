import { existsSync } from 'node:fs';
import type { JsonCollection } from '../store/json-collection';
import { createDefaultDesigns } from './default-designs';
import type { ChipSettings, EmbeddedConfig } from './embedded-config';
import { createDemoSoftChip } from './embedded-init';

/** The path the service serves the demo CA's CRL at (api/routes/pki.ts). */
export const DEMO_CRL_PATH = '/pki/demo-ca.crl';

/**
 * The CRL URL written into the demo signer certificates: loopback on the port configured at init
 * (8300 unless changed). The service also answers it in-process, so B-LT works on any port.
 */
export function demoCrlUrl(port: number): string {
  return `http://127.0.0.1:${port}${DEMO_CRL_PATH}`;
}

function sameChip(a: ChipSettings, b: ChipSettings): boolean {
  if (a.kind === 'soft' || b.kind === 'soft') return a.kind === b.kind;
  return a.module === b.module && a.token_label === b.token_label;
}

/**
 * Points the embedded platform at `chip`, keeping what exists: an existing software chip is never
 * regenerated (its private keys would be lost), the same chip keeps its credential UUIDs, another
 * chip starts a fresh mapping (CKA_IDs of two chips can collide), designs are created once.
 */
export function configureEmbeddedChip(o: { embedded: JsonCollection<EmbeddedConfig>; softChipPath: string; chip: ChipSettings; now: Date; port: number }): void {
  if (o.chip.kind === 'soft' && !existsSync(o.softChipPath)) {
    const created = createDemoSoftChip(o.softChipPath, o.now, demoCrlUrl(o.port));
    const designs = o.embedded.get().designs;
    o.embedded.replace({
      chip: o.chip,
      credentials: created.config.credentials,
      // Designs survive a new chip: they are the operator's, not the chip's.
      designs: designs.length > 0 ? designs : created.config.designs,
      default_design_key: designs.length > 0 ? o.embedded.get().default_design_key : created.config.default_design_key,
      ...(created.config.demo_crl ? { demo_crl: created.config.demo_crl } : {}),
    });
    return;
  }
  o.embedded.update((cfg) => {
    if (!sameChip(cfg.chip, o.chip)) cfg.credentials = {};
    cfg.chip = o.chip;
    // `init` is the operator's act: the chip is tried again (a failed init restores the old file).
    delete cfg.chip_pin_refused;
    if (cfg.designs.length === 0) {
      const demo = createDefaultDesigns();
      cfg.designs = demo.designs;
      cfg.default_design_key = demo.defaultKey;
    }
  });
}
