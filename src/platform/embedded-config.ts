import { newUuid } from '../config/ids';
import type { PinLatchRecord } from '../chip/pin-latch';
import type { ChipKeyAlgorithm, ChipSettings } from '../chip/types';
import { JsonCollection } from '../store/json-collection';
import type { CachedDesign } from '../store/catalog-types';

export type { ChipSettings };

export interface EmbeddedConfig {
  chip: ChipSettings;
  /** chip key id -> stable credential identity (CONTRACT: keys stay stable across syncs). */
  credentials: Record<string, { credential_key: string; name: string; algorithm: ChipKeyAlgorithm }>;
  default_design_key: string | null;
  designs: CachedDesign[];
  /**
   * The demo CA's CRL, made at `init` while its key existed (the key is never stored), and the URL
   * its signer certificates name: the service serves it there and B-LT reads it in-process.
   */
  demo_crl?: { url: string; der_base64: string };
  /**
   * The token refused the stored PIN (chip/pin-latch.ts): no process presents it again until the
   * operator acts (`chip:retry-pin` removes it; `init` writes the chip settings without it).
   */
  chip_pin_refused?: PinLatchRecord;
}

/**
 * The demo CA's CRL the embedded default holds, by the URL its certificates name (which says the
 * port the service had at init): answered from the config dir by the service and by `verify
 * --online`, so it is found whatever port the service runs on now, or with no service at all.
 */
export function demoCrlOf(config: Pick<EmbeddedConfig, 'demo_crl'>): { url: string; der: Uint8Array } | null {
  const crl = config.demo_crl;
  return crl ? { url: crl.url, der: new Uint8Array(Buffer.from(crl.der_base64, 'base64')) } : null;
}

export function embeddedConfigFile(path: string, lockPath: string): JsonCollection<EmbeddedConfig> {
  return new JsonCollection<EmbeddedConfig>(path, lockPath, () => ({
    chip: { kind: 'soft' },
    credentials: {},
    default_design_key: null,
    designs: [],
  }));
}

/** Assigns UUIDs to chip keys seen for the first time; returns the complete mapping. */
export function assignCredentialKeys(
  file: JsonCollection<EmbeddedConfig>,
  keys: { id: string; label: string; algorithm: ChipKeyAlgorithm }[],
): EmbeddedConfig['credentials'] {
  const missing = keys.filter((k) => !file.get().credentials[mapKey(k)]);
  if (missing.length === 0) return file.get().credentials;
  return file.update((cfg) => {
    for (const k of missing) {
      cfg.credentials[mapKey(k)] ??= { credential_key: newUuid(), name: k.label || `key ${k.id}`, algorithm: k.algorithm };
    }
    return cfg.credentials;
  });
}

/** A CKA_ID can be shared by a key and its certificate but not by two algorithms we map. */
export function mapKey(k: { id: string; algorithm: ChipKeyAlgorithm }): string {
  return `${k.algorithm}:${k.id}`;
}
