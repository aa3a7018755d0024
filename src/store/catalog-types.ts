import type { StampConflictPolicy, StampSpec } from '../domain/pades';

/** The catalogue as cached in cache.json (PLATFORM.md shapes; snake_case because it is wire data). */
export interface CachedCredential {
  credential_key: string;
  /** PLATFORM.md `type`: a credential type of a kind this service signs (signing/kinds/). */
  type: string;
  name: string;
  /** PLATFORM.md `engine`: one of this service's engines (signing/engines/). */
  engine: string;
  default_design_key: string | null;
  /** PAdES: base64 DER, signer first, root last. */
  certificate_chain?: string[];
  /** EVM: EIP-55 address. */
  address?: string;
  /** Engine "chip": hex CKA_ID of the key on the chip. */
  chip_key_id?: string;
  /** EVM on a chip: 65-byte uncompressed public point, hex (used by the recovery check). */
  public_key_hex?: string;
  /**
   * Engine "chip": the key is CKA_ALWAYS_AUTHENTICATE, the token wants the PIN for every signature
   * (read once at sync; absent when the key could not be read without a login).
   */
  pin_per_signature?: boolean;
  /** Engine "chip": the chip keeps no PIN (`init --chip-pin-per-request`), so a sign request brings `chip_pin`. */
  pin_per_request?: boolean;
  /**
   * PAdES: the signer certificate as GET /v1/credentials shows it, read once at sync
   * (platform/catalog-screen.ts) rather than at every list. Absent in a cache written before it.
   */
  certificate?: CachedCertificate;
}

/** RFC 4514 subject and issuer, serial as lowercase hex, validity as ISO 8601 UTC (pki/describe-certificate.ts). */
export interface CachedCertificate {
  subject: string;
  issuer: string;
  serial: string;
  not_before: string;
  not_after: string;
}

/** A catalogue entry a sync left out, and why (POST /v1/sync `skipped`, `localsign sync`). */
export type SkippedEntry = ({ credential_key: string } | { design_key: string }) & { name: string; reason: string };

export interface DesignVariable {
  name: string;
  required: boolean;
  description: string;
}

export interface CachedDesign {
  design_key: string;
  name: string;
  variables: DesignVariable[];
  stamp: StoredStamp;
}

/** A design's stamp as PLATFORM.md sends it and cache.json keeps it (wire names). */
export interface StoredStamp {
  page: 'first' | 'last' | number;
  x: number;
  y: number;
  width: number;
  height: number;
  lines: { text: string; size: number }[];
  image_png_base64?: string;
  /** When no free area of the page fits the stamp (CONTRACT); absent: "overlap". */
  on_conflict?: StampConflictPolicy;
  /** `#rrggbb` or "none"; absent: white. */
  background?: string;
}

/** The store edge: a stored stamp in the service's own words (domain/pades.ts). */
export function stampSpecOf(stored: StoredStamp): StampSpec {
  const { image_png_base64: imagePngBase64, on_conflict: onConflict, ...rest } = stored;
  return { ...rest, ...(imagePngBase64 !== undefined ? { imagePngBase64 } : {}), ...(onConflict !== undefined ? { onConflict } : {}) };
}

export interface CatalogCache {
  credentials: CachedCredential[];
  designs: CachedDesign[];
  synced_at: string | null;
  /** What the last sync left out (absent: nothing, or a cache written before this was kept). */
  skipped?: SkippedEntry[];
}

/** The embedded platform (tenant 0): credentials on this machine's chip, designs in the config dir. */
export interface EmbeddedPairing {
  platform: 'embedded';
  tenant_id: number;
  paired_at: string;
  revoked?: boolean;
}

/** A remote platform (PLATFORM.md "Pairing"); pairing.json is 0600 and the secret is never logged. */
export interface RemotePairing {
  platform: 'remote';
  tenant_id: number;
  paired_at: string;
  platform_url: string;
  agent_id: string;
  agent_secret: string;
  /** This service's /receive URL as the platform reaches it; null: the platform never pushes. */
  callback_url: string | null;
  /** Extra CA certificates (PEM) trusted for the platform (`init --platform-ca`), e.g. a TLS-inspecting proxy's. */
  platform_ca_pem: string | null;
  /** Set when the platform answered 401: the pairing was revoked (PLATFORM.md). */
  revoked?: boolean;
}

export type Pairing = EmbeddedPairing | RemotePairing;

export interface WrapperRecord {
  key: string;
  name: string;
  /** SHA-256 of the secret, hex. The secret has ≥128 random bits, so a fast hash is enough. */
  secret_sha256: string;
  /** null: every credential; otherwise the only credential keys this wrapper may use. */
  credentials: string[] | null;
  created_at: string;
  revoked_at: string | null;
}
