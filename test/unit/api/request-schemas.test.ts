import { Ajv2020 } from 'ajv/dist/2020';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodySchema, PADES_SIGN_BODY, parseBody, type BodySpec } from '../../../src/api/request-schemas';
import { BLOCKCHAIN_SIGN_BODY } from '../../../src/signing/kinds';
import { MAX_CHAIN_ID } from '../../../src/evm';
import { isLocalsignError } from '../../../src/domain/errors';

/**
 * The validator and the OpenAPI schema are derived from one description (issue 11); this holds
 * them to each other: for random bodies, the service refuses with a 422 exactly when a JSON
 * Schema validator refuses by the document. ASCII text only: JSON Schema counts code points and
 * the service UTF-16 units, which differ only past the Basic Multilingual Plane.
 */
const ajv = new Ajv2020({ strict: false });

const compiled = new Map<BodySpec, ReturnType<typeof ajv.compile>>();

function agrees(spec: BodySpec, body: Record<string, unknown>): void {
  if (!compiled.has(spec)) compiled.set(spec, ajv.compile(bodySchema(spec)));
  const validate = compiled.get(spec)!;
  const schemaOk = validate(body);
  let serviceOk = true;
  let message = '';
  try {
    parseBody(body, spec);
  } catch (e) {
    expect(isLocalsignError(e) && e.kind === 'invalid', String(e)).toBe(true);
    serviceOk = false;
    message = (e as Error).message;
  }
  expect(serviceOk, `${JSON.stringify(body).slice(0, 300)}: service ${serviceOk ? 'accepts' : `refuses (${message})`}, schema ${schemaOk ? 'accepts' : 'refuses'} (${ajv.errorsText(validate.errors)})`).toBe(schemaOk);
}

const text = fc.oneof(fc.constantFrom('', 'a', 'x'.repeat(1000), 'x'.repeat(1001)), fc.string({ maxLength: 20 }));
const anyValue = fc.oneof(text, fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }));
const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n });
const variables = fc.oneof(
  fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constant('n'.repeat(65))), fc.oneof(text, fc.integer()), { maxKeys: 4 }),
  fc.integer({ min: 60, max: 70 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, 'x']))),
  anyValue,
);

/** A body with some of the spec's fields (any value), sometimes an unknown one. */
function bodies(fields: Record<string, fc.Arbitrary<unknown>>) {
  return fc.record({ ...fields, unknown_field: anyValue }, { requiredKeys: [] }).map((b) => Object.fromEntries(Object.entries(b)) as Record<string, unknown>);
}

describe('request bodies: the validator and the OpenAPI schema agree', () => {
  it('POST /v1/pades/sign', () => {
    fc.assert(
      fc.property(
        bodies({
          // The document's own checks (type, tolerance rules) come after the 202's body checks.
          pdf_base64: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(null)),
          credential_key: fc.oneof(text, anyValue),
          design_key: fc.oneof(text, anyValue),
          variables,
          reason: fc.oneof(text, anyValue),
          location: text,
          signer_name: fc.oneof(text, anyValue),
        }),
        (body) => agrees(PADES_SIGN_BODY, body),
      ),
      { numRuns: 2000 },
    );
  });

  it('POST /v1/blockchain/sign', () => {
    fc.assert(
      fc.property(
        bodies({
          tx_hash: fc.oneof(hex(64), hex(64).map((h) => `0x${h}`), hex(64).map((h) => `0X${h}`), hex(63).map((h) => `0x${h}`), hex(65), anyValue, hex(64).map((h) => ` ${h}`)),
          credential_key: fc.oneof(text, anyValue),
          chain_id: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constantFrom(MAX_CHAIN_ID, MAX_CHAIN_ID + 1, 1.5, 2 ** 53), anyValue),
        }),
        (body) => agrees(BLOCKCHAIN_SIGN_BODY, body),
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps the messages outside tests rely on', () => {
    const refuse = (body: Record<string, unknown>, spec: BodySpec = PADES_SIGN_BODY) => {
      try {
        parseBody(body, spec);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refuse({ pdf_base64: 'x', credential_key: 'k', extra: 1 })).toBe('unknown field: extra; allowed: pdf_base64, credential_key, design_key, variables, reason, location, signer_name, level, certify, chip_pin');
    expect(refuse({ credential_key: 'k' })).toBe('pdf_base64 is required');
    expect(refuse({ pdf_base64: 'x' })).toBe('credential_key is required');
    expect(refuse({ pdf_base64: 'x', credential_key: '' })).toBe('credential_key must not be empty');
    expect(refuse({ pdf_base64: 'x', credential_key: 'k', design_key: '' })).toBe('design_key must not be empty');
    expect(refuse({ pdf_base64: 'x', credential_key: 'k', reason: 5 })).toBe('reason must be a string, got number');
    expect(refuse({ tx_hash: '0x12', credential_key: 'k' }, BLOCKCHAIN_SIGN_BODY)).toBe('tx_hash must be 64 hex digits after an optional 0x prefix, got 2 hex digits');
    expect(refuse({ tx_hash: 'ab'.repeat(32), credential_key: 'k', chain_id: '1' }, BLOCKCHAIN_SIGN_BODY)).toBe(`chain_id must be an integer from 1 to ${MAX_CHAIN_ID} (or null), got string`);
  });
});

describe('reserved names (CONTRACT: __proto__, constructor and prototype are refused, 422)', () => {
  const message = (body: Record<string, unknown>) => {
    try {
      parseBody(body, PADES_SIGN_BODY);
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };

  it('as a field or a variable of a JSON body (JSON.parse makes "__proto__" an own member), naming it; the schema agrees', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const top = JSON.parse(`{"pdf_base64":"x","credential_key":"k",${JSON.stringify(name)}:{"a":1}}`) as Record<string, unknown>;
      expect(Object.keys(top)).toContain(name);
      expect(message(top)).toBe(`field ${name} is not allowed: __proto__, constructor, prototype are reserved names`);
      agrees(PADES_SIGN_BODY, top);
      const variable = JSON.parse(`{"pdf_base64":"x","credential_key":"k","variables":{"ref":"1",${JSON.stringify(name)}:"x"}}`) as Record<string, unknown>;
      expect(message(variable)).toBe(`variables.${name} is not allowed: __proto__, constructor, prototype are reserved names`);
      agrees(PADES_SIGN_BODY, variable);
    }
    // Names that merely contain them stay names.
    expect(message({ pdf_base64: 'x', credential_key: 'k', variables: { constructor_id: 'a', proto: 'b', __proto: 'c' } })).toBe('accepted');
  });
});

describe('chip_pin (issue 16): a PIN for one signature, never echoed', () => {
  const parse = (body: Record<string, unknown>) => parseBody({ tx_hash: 'ab'.repeat(32), credential_key: 'k', ...body }, BLOCKCHAIN_SIGN_BODY);
  const refusal = (body: Record<string, unknown>): string => {
    try {
      parse(body);
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };

  it('parses to its UTF-8 bytes on both sign routes; absent or null is none', () => {
    expect(Buffer.from(parse({ chip_pin: '1234-ä' }).chip_pin!).toString('utf8')).toBe('1234-ä');
    expect(parse({}).chip_pin).toBeNull();
    expect(parse({ chip_pin: null }).chip_pin).toBeNull();
    expect(parseBody({ pdf_base64: 'x', credential_key: 'k', chip_pin: '0000' }, PADES_SIGN_BODY).chip_pin).toEqual(new Uint8Array(Buffer.from('0000')));
  });

  it('refuses empty, longer than 64 characters, or not a string, naming the bound and never the value', () => {
    const secret = 'S3CRET-'.repeat(10);
    for (const bad of ['', secret, 1234, ['1', '2'], { pin: '1' }]) {
      const message = refusal({ chip_pin: bad });
      expect(message).toBe('chip_pin must be a string of 1 to 64 characters');
      expect(message).not.toContain('S3CRET');
    }
    // 64 characters, counted as characters (not UTF-16 units): accepted.
    expect(refusal({ chip_pin: '😀'.repeat(64) })).toBe('accepted');
  });

  it('the OpenAPI schema says the same: a write-only string of 1 to 64', () => {
    const schema = bodySchema(BLOCKCHAIN_SIGN_BODY) as { properties: Record<string, Record<string, unknown>> };
    expect(schema.properties.chip_pin).toMatchObject({ type: ['string', 'null'], minLength: 1, maxLength: 64, writeOnly: true });
  });
});
