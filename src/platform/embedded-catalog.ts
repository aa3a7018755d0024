import type { ChipKey, ChipSettings } from '../chip/types';
import { addressFromPublicKey } from '../evm';
import type { CachedCredential, CachedDesign } from '../store/catalog-types';
import type { EmbeddedConfig } from './embedded-config';
import { mapKey } from './embedded-config';

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');

/**
 * What a chip credential says about its PIN: the key wants it for every signature
 * (CKA_ALWAYS_AUTHENTICATE), and the chip takes it from each request (`--chip-pin-per-request`).
 */
export function chipPinFlags(key: ChipKey, settings: ChipSettings): Pick<CachedCredential, 'pin_per_signature' | 'pin_per_request'> {
  return {
    ...(key.pinPerSignature === undefined ? {} : { pin_per_signature: key.pinPerSignature }),
    ...(settings.kind === 'pkcs11' && settings.pin_per_request ? { pin_per_request: true } : {}),
  };
}

/**
 * The embedded platform's catalogue: every chip key that can sign becomes a credential (RSA and
 * P-256 keys with a certificate: PAdES; secp256k1 keys: EVM), designs come from the config dir.
 */
export function buildEmbeddedCatalog(
  keys: ChipKey[],
  cfg: Pick<EmbeddedConfig, 'credentials' | 'default_design_key' | 'designs' | 'chip'>,
): { credentials: CachedCredential[]; designs: CachedDesign[] } {
  const credentials: CachedCredential[] = [];
  for (const key of keys) {
    const identity = cfg.credentials[mapKey(key)];
    if (!identity) continue;
    if (key.algorithm === 'secp256k1') {
      credentials.push({
        credential_key: identity.credential_key,
        type: 'evm',
        name: identity.name,
        engine: 'chip',
        default_design_key: null,
        address: addressFromPublicKey(key.publicKey),
        chip_key_id: key.id,
        public_key_hex: Buffer.from(key.publicKey).toString('hex'),
        ...chipPinFlags(key, cfg.chip),
      });
    } else if (key.certificate) {
      credentials.push({
        credential_key: identity.credential_key,
        type: 'pades',
        name: identity.name,
        engine: 'chip',
        default_design_key: cfg.default_design_key,
        certificate_chain: [key.certificate, ...key.chain].map(b64),
        chip_key_id: key.id,
        ...chipPinFlags(key, cfg.chip),
      });
    }
  }
  credentials.sort((a, b) => a.name.localeCompare(b.name) || a.credential_key.localeCompare(b.credential_key));
  return { credentials, designs: cfg.designs };
}
