/**
 * How a request body is described (the service's own words for it): each field's kind of value,
 * whether it is required, its description. One description gives both the check of a body
 * (api/request-schemas.ts `parseBody`) and its schema in the OpenAPI document, so the document
 * cannot promise what the service refuses. Kinds of request describe their own bodies with it
 * (signing/kinds/), which is why it lives here and not in api/.
 */
import type { PadesLevel, RevocationPolicy } from './pades';

export type FieldKind =
  /** A document in base64: presence only here; the tolerance rules decode it (api/base64-repair.ts). */
  | 'document'
  /** Text of at most FIELD_MAX_CHARS characters; `nonEmpty`: "" is refused (it would name nothing). */
  | 'text'
  /** Text a reader of the signature sees (/Name, /Reason, /Location, the stamp): no controls, no bidi overrides. */
  | 'display_text'
  /** Design variables: name -> text (CONTRACT bounds; `__proto__`, `constructor`, `prototype` refused as names). */
  | 'text_map'
  /** 32 bytes as 64 hex digits after an optional 0x (CONTRACT tx_hash). */
  | 'hash32'
  /** EIP-155 chain id (CONTRACT chain_id). */
  | 'chain_id'
  /** A PAdES baseline level, ETSI EN 319 142-1 §4 (CONTRACT extension `level`). */
  | 'pades_level'
  /** A DocMDP permission 1, 2 or 3, ISO 32000-1 Table 254 (CONTRACT extension `certify`). */
  | 'docmdp'
  /** What local validation does without a certificate's revocation status (domain/pades.ts RevocationPolicy). */
  | 'revocation_policy'
  /** A chip PIN for one signature (CONTRACT extension `chip_pin`): parsed to UTF-8 bytes, never echoed in a message. */
  | 'pin';

export interface FieldSpec {
  kind: FieldKind;
  required: boolean;
  nonEmpty?: boolean;
  description: string;
}

export type BodySpec = Readonly<Record<string, FieldSpec>>;

/** The values a body spec parses to, by kind. */
type ValueOf<F extends FieldSpec> = F['kind'] extends 'hash32'
  ? Uint8Array
  : F['kind'] extends 'pades_level'
    ? PadesLevel | null
  : F['kind'] extends 'docmdp'
    ? 1 | 2 | 3 | null
  : F['kind'] extends 'revocation_policy'
    ? RevocationPolicy | null
  : F['kind'] extends 'pin'
    ? Uint8Array | null
  : F['kind'] extends 'chain_id'
    ? number | null
    : F['kind'] extends 'text_map'
      ? Record<string, string>
      : F['kind'] extends 'document'
        ? unknown
        : F['required'] extends true
          ? string
          : string | null;
export type Parsed<B extends BodySpec> = { -readonly [K in keyof B]: ValueOf<B[K]> };

/** `chip_pin` in every sign body that takes it (CONTRACT extension). */
export const CHIP_PIN_DESCRIPTION =
  'The signatory\'s PIN for this one signature, for a credential whose chip keeps none (pin_per_request in GET /v1/credentials): used for its logins, held in memory only, never stored, logged or echoed; a request still PENDING at a restart ends ERROR. JSON body only.';
