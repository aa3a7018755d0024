/**
 * Every answer body of the API, described once (OpenAPI 3.1 components). The routes that shape
 * these answers are checked against them by test/integration/api/openapi-responses.test.ts, which
 * validates real answers (success and error) with a validator from npm, so a field added to a
 * route without a line here fails a test. The TypeScript client's types are generated from these
 * (clients/typescript/src/api-types.ts, `npm run build`).
 */
import type { EngineFacts } from '../signing/engines';
import type { SignatureKind } from '../signing/kinds';
import type { JsonSchema } from './request-schemas';

/** A schema of the document's `components.schemas` (componentSchemas below). */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const obj = (required: string[], properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
});
const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra, ...(description ? { description } : {}) });
const time = (description?: string): JsonSchema => str(description, { format: 'date-time' });

/** The kinds and engines a document describes: the service's (context.ts), the built-in ones by default. */
export interface DescribedTables {
  kinds: readonly SignatureKind[];
  engines: readonly EngineFacts[];
}

/**
 * The answers' schemas, for these kinds and engines: each kind's DONE result is its own schema
 * (kind.ts `resultSchema`) and a branch of Result; the kinds' and credential types' names and the
 * engines' are the enums of the lists.
 */
export function componentSchemas({ kinds, engines }: DescribedTables) {
  const types = [...new Set(kinds.map((k) => k.credential.name))];
  return {
    Error: obj(['error', 'error_id'], {
      error: str('Short message naming the field and what was expected; never a traceback'),
      error_id: str('Id of the record in GET /v1/errors and errors.jsonl', { pattern: '^err_' }),
    }),
    Accepted: obj(['request_id', 'status'], {
      request_id: str('Read the outcome at GET /v1/results/{request_id}', { pattern: '^req_' }),
      status: { const: 'PENDING' },
    }),
    PendingResult: obj(['request_id', 'status'], { request_id: str(), status: { const: 'PENDING' } }),
    ErrorResult: obj(['request_id', 'status', 'error', 'error_id'], {
      request_id: str(),
      status: { const: 'ERROR' },
      error: str('Why the signing failed'),
      error_id: str('Its record in GET /v1/errors', { pattern: '^err_' }),
    }),
    ...Object.fromEntries(kinds.map((k) => [k.resultSchema.name, k.resultSchema.schema])),
    VerifyReport: {
      type: 'object',
      required: ['valid', 'signatures', 'problems'],
      description: 'Per signature in file order; `valid` is the verdict per signature and for the document. A PDF that cannot be fully read is still a report: `valid` false, the reason in `problems`',
      properties: {
        valid: { type: 'boolean', description: 'Every signature valid, at least one, and no document-level problem' },
        problems: {
          type: 'array',
          items: { type: 'string' },
          description: 'What is wrong with the document as a whole, empty for a sound file: damaged cross-reference data (the objects were found by scanning the file, as qpdf and pdfsig do; each signature that could be read is reported), or why it cannot be read at all (then `signatures` is empty)',
        },
        signatures: {
          type: 'array',
          items: {
            type: 'object',
            required: ['valid', 'field', 'fields', 'kind', 'digest_valid', 'byte_range', 'covers_whole_document', 'changes_after', 'chain', 'revocation', 'level', 'problems'],
            properties: {
              valid: { type: 'boolean' },
              field: { type: 'string' },
              fields: { type: 'array', items: { type: 'string' }, description: 'Every field whose value is this signature dictionary, `field` first' },
              kind: { enum: ['signature', 'document_timestamp'] },
              sub_filter: { type: ['string', 'null'] },
              signer: { oneOf: [{ $ref: '#/components/schemas/Certificate' }, { type: 'null' }] },
              claimed_signing_time: { type: ['string', 'null'] },
              digest_valid: { type: 'boolean' },
              byte_range: { type: ['array', 'null'], items: { type: 'integer' } },
              covers_whole_document: { type: 'boolean' },
              changes_after: { type: 'object', properties: { level: { enum: ['none', 'dss_and_timestamps', 'signing_and_forms', 'annotations', 'other'] }, changes: { type: 'array', items: { type: 'string' }, maxItems: 50 }, changes_total: { type: 'integer', minimum: 0, description: 'How many changes there are; `changes` lists the first 50' }, allowed: { type: 'boolean' }, docmdp_permission: { enum: [1, 2, 3, null] } } },
              certifies: { enum: [1, 2, 3, null] },
              chain: {
                type: 'object',
                properties: {
                  trusted: { type: 'boolean', description: 'A path to a trust anchor valid by RFC 5280 §6.1, and no certificate of it revoked (or, under revocation "require", of unknown status)' },
                  path: { type: 'array', items: { type: 'string' } },
                  failures: { type: 'array', items: { type: 'string' } },
                  policies: { type: 'array', items: { type: 'string' }, description: 'The certificate policies (OIDs) the path is valid for, the user-constrained policy set of RFC 5280 §6.1 with its default inputs; 2.5.29.32.0 (anyPolicy) when no certificate restricts them; empty when the chain is not trusted or asserts no policy' },
                },
              },
              timestamp: { type: ['object', 'null'], properties: { time: { type: ['string', 'null'], format: 'date-time' }, valid: { type: 'boolean' }, authority: { type: ['string', 'null'] }, trusted: { type: 'boolean' }, chain_failures: { type: 'array', items: { type: 'string' } }, problems: { type: 'array', items: { type: 'string' } } } },
              revocation: {
                type: 'array',
                description: 'The revocation status of each certificate of the chain below its trust anchor (RFC 5280 §6.3), at the time the chain is judged',
                items: {
                  type: 'object',
                  properties: {
                    certificate: { type: 'string' },
                    status: { enum: ['good', 'revoked', 'unknown', 'no_data'], description: '`no_data`: no usable CRL or OCSP response determines it (`problems` says what was found and why it is unusable)' },
                    source: { enum: ['ocsp', 'crl', null] },
                    found_in: { enum: ['dss', 'signature', 'online', null], description: "Where the answer used was found: the document's /DSS or /VRI, the signature's CMS (its crls field or the adbe-revocationInfoArchival attribute), or fetched (verify --online)" },
                    revoked_at: { type: ['string', 'null'] },
                    reason: { type: ['string', 'null'], description: 'The CRLReason of a revocation (RFC 5280 §5.3.1), when the CRL gives one' },
                    checked_at: { type: ['string', 'null'] },
                    problems: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
              algorithms: {
                type: 'object',
                description: "The signer's algorithms and, by ETSI TS 119 312 as EU DSS's default policy encodes it, until when they are acceptable: a lapse by 2022 is a problem (too weak to trust), a later one or an algorithm not in the table a warning",
                properties: {
                  digest: { type: ['string', 'null'], description: 'SHA-256, SHA3-256, SHAKE256, …' },
                  signature: { type: ['string', 'null'], description: 'ECDSA with SHA-256, RSASSA-PSS with SHA-256, Ed25519, Ed448, …' },
                  key: { type: ['string', 'null'], description: 'RSA 3072, EC P-256, Ed448, …' },
                  acceptable_until: { type: ['integer', 'null'], description: 'The year from which the weakest of them is no longer acceptable' },
                  warnings: { type: 'array', items: { type: 'string' } },
                },
              },
              level: { enum: ['B-B', 'B-T', 'B-LT', 'B-LTA', null] },
              problems: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
    Result: { oneOf: [ref('PendingResult'), ref('ErrorResult'), ...kinds.map((k) => ref(k.resultSchema.name))] },
    ResultEntry: obj(['request_id', 'status', 'kind', 'credential_key', 'created_at', 'completed_at'], {
      request_id: str(),
      status: { enum: ['PENDING', 'DONE', 'ERROR'] },
      kind: { enum: kinds.map((k) => k.name) },
      credential_key: str(),
      created_at: time(),
      completed_at: { type: ['string', 'null'], format: 'date-time', description: 'null while PENDING' },
    }),
    ResultList: obj(['results'], { results: { type: 'array', items: { $ref: '#/components/schemas/ResultEntry' }, description: 'Newest first; only this application key’s requests' } }),
    Certificate: obj(['subject', 'issuer', 'serial', 'not_before', 'not_after'], {
      subject: str('RFC 4514'),
      issuer: str('RFC 4514'),
      serial: str('lowercase hex', { pattern: '^[0-9a-f]+$' }),
      not_before: time(),
      not_after: time(),
    }),
    Credential: obj(['credential_key', 'type', 'name', 'engine', 'default_design_key'], {
      credential_key: str('Use it in sign requests'),
      type: { enum: types },
      name: str(),
      engine: { enum: engines.map((e) => e.name), description: engines.map((e) => `${e.name}: ${e.summary}`).join('; ') },
      default_design_key: { type: ['string', 'null'], description: 'null for evm credentials' },
      certificate: { oneOf: [{ $ref: '#/components/schemas/Certificate' }, { type: 'null' }], description: 'pades: the signer certificate' },
      certificate_chain: { type: 'array', items: { type: 'string', contentEncoding: 'base64' }, description: 'pades: base64 DER, signer first, root last' },
      address: str('evm: EIP-55 address', { pattern: '^0x[0-9a-fA-F]{40}$' }),
      pin_per_signature: { type: 'boolean', description: 'chip: the key wants the PIN for every signature (PKCS#11 CKA_ALWAYS_AUTHENTICATE); absent when the key could not be read without a login' },
      pin_per_request: { type: 'boolean', enum: [true], description: 'chip: the chip keeps no PIN; each sign request with this credential brings chip_pin' },
    }),
    CredentialList: obj(['credentials'], { credentials: { type: 'array', items: { $ref: '#/components/schemas/Credential' } } }),
    DesignVariable: obj(['name', 'required', 'description'], { name: str(), required: { type: 'boolean' }, description: str() }),
    Design: obj(['design_key', 'name', 'variables'], {
      design_key: str('Use it as design_key in POST /v1/pades/sign'),
      name: str(),
      variables: { type: 'array', items: { $ref: '#/components/schemas/DesignVariable' } },
    }),
    DesignList: obj(['designs'], { designs: { type: 'array', items: { $ref: '#/components/schemas/Design' } } }),
    CacheSummary: obj(['credentials', 'designs'], { credentials: { type: 'integer', minimum: 0 }, designs: { type: 'integer', minimum: 0 } }),
    SkippedEntry: {
      description: 'A catalogue entry the sync left out (the others are served), with the reason; also a warning in the service log',
      oneOf: [
        obj(['credential_key', 'name', 'reason'], { credential_key: str('The credential left out, e.g. for a certificate that is not DER X.509'), name: str(), reason: str() }),
        obj(['design_key', 'name', 'reason'], { design_key: str('The design left out, e.g. for a stamp image over 2000 × 2000 pixels or 16 MiB decoded'), name: str(), reason: str() }),
      ],
    },
    SyncAnswer: obj(['ok', 'credentials', 'designs', 'cache'], {
      ok: { const: true },
      credentials: { type: 'integer', minimum: 0 },
      designs: { type: 'integer', minimum: 0 },
      cache: { $ref: '#/components/schemas/CacheSummary' },
      skipped: { type: 'array', items: { $ref: '#/components/schemas/SkippedEntry' }, description: 'Present when the sync left entries out' },
    }),
    ErrorRecord: obj(['error_id', 'short', 'ts', 'type', 'request_id', 'status'], {
      error_id: str(undefined, { pattern: '^err_' }),
      short: str('The message the caller got'),
      ts: time(),
      type: str('Kind of error (validation, auth, routing, platform, signing, internal, …)'),
      request_id: { type: ['string', 'null'], description: 'The request it belongs to, or null (a refused call has no request)' },
      status: { type: ['integer', 'null'], description: 'The HTTP status answered, or null for a failure after the 202' },
    }),
    ErrorList: obj(['errors'], { errors: { type: 'array', items: { $ref: '#/components/schemas/ErrorRecord' }, description: 'Newest first; only this application key’s records' } }),
    Health: obj(['ok', 'service', 'paired', 'tenant_id', 'version', 'commit', 'api_version', 'cache'], {
      ok: { const: true },
      service: { const: 'local-signing-service' },
      paired: { type: 'boolean' },
      tenant_id: { type: ['integer', 'null'], description: 'null when unpaired or revoked; 0 on the embedded platform' },
      version: str(),
      commit: str(),
      api_version: { type: 'integer', description: '1 before 0.2.0 (no /v1/sync, /v1/results, /v1/errors); 2 from 0.2.0' },
      cache: { $ref: '#/components/schemas/CacheSummary' },
      platform: { enum: ['remote', 'embedded', null] },
      chip: {
        enum: ['present', 'absent', 'pin_rejected'],
        description: "the PKCS#11 chip: present, absent (its token did not answer: pulled out; the next request opens it again once it is back), pin_rejected (the token refused the configured PIN: no login until the operator acts); not given before the chip was used, nor for the software chip",
      },
    }),
    ReceiveAnswer: obj(['ok'], { ok: { const: true }, duplicate: { type: 'boolean' } }),
    ReceiveBody: obj(['request_id', 'status'], { request_id: str(), status: { enum: ['DONE', 'ERROR'] } }, 'PLATFORM.md "Push"'),
  } satisfies Record<string, JsonSchema>;
}
