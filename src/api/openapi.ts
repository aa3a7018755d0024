import { VERSION } from '../config/version';

const error = { $ref: '#/components/schemas/Error' };
const errorResponses = (codes: number[]) =>
  Object.fromEntries(codes.map((code) => [String(code), { description: String(code), content: { 'application/json': { schema: error } } }]));
const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const limit = (def: number) => ({ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: def }, description: 'digits only; above 1000 is clamped' });
const auth = [{ wrapperKey: [], wrapperSecret: [] }];
/** A sign request body: a closed object (unknown fields are 422, CONTRACT). */
const signBody = (required: string[], properties: Record<string, unknown>) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', additionalProperties: false, required, properties } } },
});
const accepted = json({ type: 'object', required: ['request_id', 'status'], properties: { request_id: { type: 'string', pattern: '^req_' }, status: { const: 'PENDING' } } }, 'Accepted');

/** GET /openapi.json: the API as built (CONTRACT), OpenAPI 3.1. */
export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'localsign local signing service', version: VERSION },
  servers: [{ url: 'http://127.0.0.1:8300' }],
  components: {
    securitySchemes: {
      wrapperKey: { type: 'apiKey', in: 'header', name: 'X-Wrapper-Key' },
      wrapperSecret: { type: 'apiKey', in: 'header', name: 'X-Wrapper-Secret' },
    },
    schemas: {
      Error: { type: 'object', required: ['error', 'error_id'], properties: { error: { type: 'string' }, error_id: { type: 'string', pattern: '^err_' } } },
      Certificate: { type: 'object', properties: { subject: { type: 'string' }, issuer: { type: 'string' }, serial: { type: 'string' }, not_before: { type: 'string', format: 'date-time' }, not_after: { type: 'string', format: 'date-time' } } },
      Credential: {
        type: 'object',
        required: ['credential_key', 'type', 'name', 'engine', 'default_design_key'],
        properties: {
          credential_key: { type: 'string', format: 'uuid' },
          type: { enum: ['pades', 'evm'] },
          name: { type: 'string' },
          engine: { enum: ['chip', 'platform'] },
          default_design_key: { type: ['string', 'null'] },
          certificate: { $ref: '#/components/schemas/Certificate' },
          certificate_chain: { type: 'array', items: { type: 'string', contentEncoding: 'base64' } },
          address: { type: 'string' },
        },
      },
      Design: {
        type: 'object',
        properties: {
          design_key: { type: 'string', format: 'uuid' },
          name: { type: 'string' },
          variables: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, required: { type: 'boolean' }, description: { type: 'string' } } } },
        },
      },
      Result: {
        type: 'object',
        required: ['request_id', 'status'],
        properties: {
          request_id: { type: 'string' },
          status: { enum: ['PENDING', 'DONE', 'ERROR'] },
          pdf_base64: { type: 'string' },
          r: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
          s: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
          v: { type: 'integer' },
          y_parity: { enum: [0, 1] },
          address: { type: 'string' },
          chain_id: { type: ['integer', 'null'] },
          error: { type: 'string' },
          error_id: { type: 'string' },
        },
      },
    },
  },
  paths: {
    '/health': { get: { summary: 'Service status', responses: { '200': json({ type: 'object' }) } } },
    '/openapi.json': { get: { summary: 'This document', responses: { '200': json({ type: 'object' }) } } },
    '/v1/pades/sign': {
      post: {
        summary: 'Sign a PDF (PAdES B-B, or B-T with a timestamp authority)',
        security: auth,
        requestBody: signBody(['pdf_base64', 'credential_key'], {
          pdf_base64: { type: 'string' },
          credential_key: { type: 'string' },
          design_key: { type: ['string', 'null'] },
          variables: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
          reason: { type: ['string', 'null'] },
          location: { type: ['string', 'null'] },
          signer_name: { type: ['string', 'null'] },
        }),
        responses: { '202': accepted, ...errorResponses([401, 403, 409, 413, 422, 500]) },
      },
    },
    '/v1/blockchain/sign': {
      post: {
        summary: 'Sign a keccak256 transaction hash (secp256k1, low-s)',
        security: auth,
        requestBody: signBody(['tx_hash', 'credential_key'], {
          tx_hash: { type: 'string', pattern: '^(0[xX])?[0-9a-fA-F]{64}$' },
          credential_key: { type: 'string' },
          chain_id: { type: ['integer', 'null'], minimum: 1, maximum: 4503599627370476 },
        }),
        responses: { '202': accepted, ...errorResponses([401, 403, 409, 413, 422, 500]) },
      },
    },
    '/v1/results/{request_id}': {
      get: {
        summary: 'One signing result',
        security: auth,
        parameters: [
          { name: 'request_id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'wait', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 30, default: 0 }, description: 'long poll: hold a PENDING answer up to this many seconds (digits only; above 30 is clamped)' },
        ],
        responses: { '200': json({ $ref: '#/components/schemas/Result' }), ...errorResponses([401, 404]) },
      },
    },
    '/v1/results': { get: { summary: 'Recent results, newest first', security: auth, parameters: [limit(50)], responses: { '200': json({ type: 'object' }), ...errorResponses([401, 422]) } } },
    '/v1/credentials': { get: { summary: 'Cached credentials', security: auth, responses: { '200': json({ type: 'object', properties: { credentials: { type: 'array', items: { $ref: '#/components/schemas/Credential' } } } }) } } },
    '/v1/designs': { get: { summary: 'Cached stamp designs', security: auth, responses: { '200': json({ type: 'object', properties: { designs: { type: 'array', items: { $ref: '#/components/schemas/Design' } } } }) } } },
    '/v1/sync': { post: { summary: 'Reload credentials and designs from the platform', security: auth, responses: { '200': json({ type: 'object' }), ...errorResponses([401, 409, 502]) } } },
    '/v1/errors': {
      get: {
        summary: 'Recorded errors, newest first, without tracebacks',
        security: auth,
        parameters: [limit(20), { name: 'request_id', in: 'query', schema: { type: 'string' } }],
        responses: { '200': json({ type: 'object' }), ...errorResponses([401, 422]) },
      },
    },
  },
} as const;
