/**
 * The service's own words for PAdES signing, in one domain module. The wire (request and
 * catalogue JSON, snake_case) and the stored shapes are converted to these at their edges:
 * api/ for requests, store/ for the catalogue; nothing else declares them again.
 */

/** ETSI EN 319 142-1 baseline levels, lowest first. */
export const PADES_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type PadesLevel = (typeof PADES_LEVELS)[number];

/**
 * What local validation does when a certificate's revocation status cannot be determined
 * (RFC 5280 §6.3, ETSI EN 319 102-1 §5.2.6): `require` fails the path (the default of `verify`
 * and POST /v1/pades/verify), `if-available` fails it only for a revocation the data proves.
 * Data that is there is always judged: a revoked certificate is never trusted.
 */
export const REVOCATION_POLICIES = ['require', 'if-available'] as const;
export type RevocationPolicy = (typeof REVOCATION_POLICIES)[number];

/** DocMDP /P of a certification signature (ISO 32000-1 §12.8.2.2): 1 no changes, 2 forms, 3 forms and annotations. */
export type DocMdpPermission = 1 | 2 | 3;

/**
 * Request fields that also fill the design's placeholders of the same name (CONTRACT Result
 * semantics); every other placeholder but {{date}} is a design variable (`variables.NAME`).
 */
export const FIELD_PLACEHOLDERS = ['signer_name', 'reason', 'location'] as const;

/**
 * What to do when no free area of the page fits the stamp (CONTRACT: a design's `stamp` may add
 * `on_conflict`): draw it over the content anyway, append a signature page, or refuse.
 */
export type StampConflictPolicy = 'overlap' | 'new_page' | 'refuse';

/** A design's stamp, in PDF points from the page's lower-left corner (PLATFORM.md "Catalogue"). */
export interface StampSpec {
  page: 'first' | 'last' | number; // numbers count from 1
  x: number;
  y: number;
  width: number;
  height: number;
  /**
   * `text` holds `{{variable}}` placeholders, filled by fillStampText before drawing. `unfilled`:
   * the line's placeholders, when every one of them came out empty for this request ("Location: "
   * with no location): such a line is not drawn, and the result's `warnings` name it.
   */
  lines: { text: string; size: number; unfilled?: string[] }[];
  /** The stamp image, a PNG in base64 (checked at sync: platform/png-limits.ts). */
  imagePngBase64?: string;
  /** Absent: "overlap". See pades/stamp/stamp-placement.ts. */
  onConflict?: StampConflictPolicy;
  /** Fill behind the stamp: `#rrggbb`, or "none" for a transparent stamp; absent: white. */
  background?: string;
}

/** The signer's key, as the CMS SignerInfo names its algorithm. */
export type SignatureAlgorithm = 'rsa' | 'p256';
