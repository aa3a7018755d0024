/**
 * One description per request body (fields, types, bounds, required), from which both the
 * validator (`parseBody`) and the OpenAPI schema (`bodySchema`) are derived, so the document
 * cannot promise what the service refuses. The checks themselves stay in validate.ts (their exact
 * messages are part of the contract); a field kind only says which check applies. A new field is
 * one entry in its body's description; a new kind of value is one case in `parseField` and one in
 * `fieldSchema` (and its name in domain/request-body.ts). The sign bodies of kinds with a JSON
 * route are their own (signing/kinds/); the PAdES ones are here, beside their route.
 */
import { MAX_CHAIN_ID, parseChainId, parseTxHash } from '../evm';
import { PADES_LEVELS, REVOCATION_POLICIES } from '../domain/pades';
import { CHIP_PIN_DESCRIPTION, type BodySpec, type FieldSpec, type Parsed } from '../domain/request-body';
import { InvalidInputError } from '../domain/errors';
import { assertKnownFields, DISPLAY_TEXT_PATTERN, FIELD_MAX_CHARS, optionalDisplayText, optionalString, optionalStringMap, requiredString, RESERVED_NAMES, typeName, VARIABLE_NAME_MAX_CHARS, VARIABLES_MAX_ENTRIES } from './validate';

export type JsonSchema = Record<string, unknown>;

export type { BodySpec, FieldKind, FieldSpec, Parsed } from '../domain/request-body';

/** The longest chip PIN taken (CONTRACT: chip_pin ≤ 64 characters; PKCS#11 tokens take far less). */
export const CHIP_PIN_MAX_CHARS = 64;

/** POST /v1/pades/sign (spec §4, CONTRACT bounds). Order matters: it is the order of the checks. */
export const PADES_SIGN_BODY = {
  pdf_base64: { kind: 'document', required: true, description: 'The PDF in base64; malformed encodings are repaired by the tolerance rules (spec §7) or refused' },
  credential_key: { kind: 'text', required: true, nonEmpty: true, description: 'A pades credential (GET /v1/credentials)' },
  design_key: { kind: 'text', required: false, nonEmpty: true, description: "Stamp design (GET /v1/designs); absent or null: the credential's default design" },
  variables: { kind: 'text_map', required: false, description: "Values for the design's variables" },
  reason: { kind: 'display_text', required: false, description: '/Reason of the signature; also fills the design variable of that name' },
  location: { kind: 'display_text', required: false, description: '/Location of the signature; also fills the design variable of that name' },
  signer_name: { kind: 'display_text', required: false, description: '/Name of the signature; also fills the design variable of that name' },
  level: { kind: 'pades_level', required: false, description: 'PAdES baseline level; absent or null: the service default (serve --pades-level: B-T with a timestamp authority, else B-B). B-T and above need a timestamp authority' },
  certify: { kind: 'docmdp', required: false, description: 'Make it a certification signature with DocMDP /P: 1 no changes, 2 form filling and signing, 3 also annotations; refused on a document already signed' },
  chip_pin: { kind: 'pin', required: false, description: CHIP_PIN_DESCRIPTION },
} as const satisfies BodySpec;

/** POST /v1/pades/verify (CONTRACT extension): the document only, under the same tolerance rules. */
export const PADES_VERIFY_BODY = {
  pdf_base64: { kind: 'document', required: true, description: 'The signed PDF in base64 (the tolerance rules of the sign route apply); it is not stored' },
  revocation: {
    kind: 'revocation_policy',
    required: false,
    description:
      'What a certificate whose revocation status cannot be determined (no usable CRL or OCSP response in the document, RFC 5280 §6.3) means: "require" (absent or null: the default) makes its chain untrusted, as ETSI EN 319 102-1 leaves such a signature indeterminate; "if-available" trusts it and fails only a revocation the data proves. A revoked certificate is never trusted',
  },
} as const satisfies BodySpec;

function parseField(body: Record<string, unknown>, name: string, field: FieldSpec): unknown {
  switch (field.kind) {
    case 'document':
      if (body[name] === undefined || body[name] === null) throw new InvalidInputError(`${name} is required`);
      return body[name];
    case 'text': {
      if (field.required) return requiredString(body, name);
      const v = optionalString(body, name);
      // "" is not "absent" (only null is, CONTRACT): for a key it names nothing, and treating it
      // as none would drop the credential's default stamp without a word.
      if (field.nonEmpty && v === '') throw new InvalidInputError(`${name} must not be empty`);
      return v;
    }
    case 'display_text':
      return optionalDisplayText(body, name);
    case 'text_map':
      return optionalStringMap(body, name);
    case 'hash32':
      return parseTxHash(body[name], name);
    case 'chain_id':
      return parseChainId(body[name]);
    case 'pades_level': {
      const v = body[name];
      if (v === undefined || v === null) return null;
      const level = PADES_LEVELS.find((l) => l === v);
      if (!level) throw new InvalidInputError(`${name} must be one of ${PADES_LEVELS.map((l) => `"${l}"`).join(', ')}, got ${typeof v === 'string' ? `"${v.slice(0, 20)}"` : typeName(v)}`);
      return level;
    }
    case 'docmdp': {
      const v = body[name];
      if (v === undefined || v === null) return null;
      if (v !== 1 && v !== 2 && v !== 3) {
        throw new InvalidInputError(`${name} must be 1 (no changes), 2 (form filling and signing) or 3 (also annotations), got ${typeof v === 'string' ? `"${v.slice(0, 20)}"` : typeName(v) === 'number' ? String(v) : typeName(v)}`);
      }
      return v;
    }
    case 'revocation_policy': {
      const v = body[name];
      if (v === undefined || v === null) return null;
      const policy = REVOCATION_POLICIES.find((p) => p === v);
      if (!policy) throw new InvalidInputError(`${name} must be one of ${REVOCATION_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${typeof v === 'string' ? `"${v.slice(0, 20)}"` : typeName(v)}`);
      return policy;
    }
    case 'pin': {
      const v = body[name];
      if (v === undefined || v === null) return null;
      // The message names the bound and never the value (CONTRACT: a PIN is never echoed).
      if (typeof v !== 'string' || v.length === 0 || [...v].length > CHIP_PIN_MAX_CHARS) {
        throw new InvalidInputError(`${name} must be a string of 1 to ${CHIP_PIN_MAX_CHARS} characters`);
      }
      return new Uint8Array(Buffer.from(v, 'utf8'));
    }
  }
}


/**
 * CONTRACT: an unknown field is 422 naming it; then each field in declaration order, every bound
 * before anything is decoded or looked up.
 */
export function parseBody<B extends BodySpec>(body: Record<string, unknown>, spec: B): Parsed<B> {
  assertKnownFields(body, Object.keys(spec));
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec)) out[name] = parseField(body, name, field);
  return out as Parsed<B>;
}

const nullable = (schema: JsonSchema, field: FieldSpec): JsonSchema =>
  field.required ? schema : { ...schema, type: [schema.type as string, 'null'] };

/** The JSON Schema (OpenAPI 3.1 = JSON Schema 2020-12) of one field, the same bounds as parseField. */
function fieldSchema(field: FieldSpec): JsonSchema {
  const description = field.description;
  switch (field.kind) {
    case 'document':
      return { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/pdf', description };
    case 'text':
      return nullable({ type: 'string', ...(field.nonEmpty ? { minLength: 1 } : {}), maxLength: FIELD_MAX_CHARS, description }, field);
    case 'display_text':
      return nullable({ type: 'string', maxLength: FIELD_MAX_CHARS, pattern: DISPLAY_TEXT_PATTERN, description }, field);
    case 'text_map':
      return nullable(
        { type: 'object', maxProperties: VARIABLES_MAX_ENTRIES, propertyNames: { maxLength: VARIABLE_NAME_MAX_CHARS, not: { enum: [...RESERVED_NAMES] } }, additionalProperties: { type: 'string', maxLength: FIELD_MAX_CHARS }, description },
        field,
      );
    case 'hash32':
      return { type: 'string', pattern: '^(0[xX])?[0-9a-fA-F]{64}$', description };
    case 'chain_id':
      return nullable({ type: 'integer', minimum: 1, maximum: MAX_CHAIN_ID, description }, field);
    case 'pades_level':
      return { enum: [...PADES_LEVELS, null], description };
    case 'docmdp':
      return { enum: [1, 2, 3, null], description };
    case 'revocation_policy':
      return { enum: [...REVOCATION_POLICIES, null], description };
    case 'pin':
      return { type: ['string', 'null'], minLength: 1, maxLength: CHIP_PIN_MAX_CHARS, writeOnly: true, format: 'password', description };
  }
}

/** A closed object (CONTRACT: an unknown field in a sign request is 422). */
export function bodySchema(spec: BodySpec): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.entries(spec).filter(([, f]) => f.required).map(([n]) => n),
    properties: Object.fromEntries(Object.entries(spec).map(([n, f]) => [n, fieldSchema(f)])),
  };
}
