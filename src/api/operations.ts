/**
 * The route table: every operation the API serves, with what its checks are (key, pairing, body)
 * and what it answers. app.ts attaches the middleware from it and openapi.ts writes the document
 * from it, so a route cannot exist undocumented, and the error statuses listed follow from the
 * checks (CONTRACT order: Host/Origin 403 on every path, key 401, pairing 409, body 413/422).
 * Adding a route is one entry here and its handler in app.ts (the type makes the handler
 * mandatory). A kind of request with a JSON body brings its own sign route (kind.ts `KindRoute`),
 * placed among these by `operationsOf`.
 */
import { BUILT_IN_KINDS, type KindRoute, type SignatureKind } from '../signing/kinds';
import { PADES_SIGN_BODY, PADES_VERIFY_BODY, type BodySpec, type JsonSchema } from './request-schemas';
import { ref } from './response-schemas';
import { LIMIT_MAX, WAIT_MAX_SECONDS } from './validate';

/**
 * The result's `warnings` on GET /v1/results/{id}/pdf, whose body is the PDF itself: a client of
 * that route (`localsign sign pdf`) learns of a shortened stamp line without the base64 result.
 */
export const WARNINGS_HEADER = 'Localsign-Warnings';
/** Where the stamp of a signed PDF is, as JSON: the result's `stamp`, which the PDF route cannot carry in its body. */
export const STAMP_HEADER = 'Localsign-Stamp';

/** `?wait=N`: the long poll of GET /v1/results/{id} and of its /pdf, so callers need not poll often. */
const WAIT_PARAMETER = {
  name: 'wait',
  in: 'query',
  schema: { type: 'integer', minimum: 0, default: 0 },
  description: `Long poll: hold a PENDING answer up to this many seconds (digits only; above ${WAIT_MAX_SECONDS} is clamped to ${WAIT_MAX_SECONDS})`,
} as const;

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  schema: JsonSchema;
  description?: string;
}

export interface Operation {
  /** OpenAPI operationId; the TypeScript client's method for it has the same name. */
  id: string;
  method: 'GET' | 'POST';
  /** hono's form: `:name` for a path parameter. */
  path: string;
  summary: string;
  /** Wrapper key and secret (spec §5): 401 without them. */
  auth: boolean;
  /** CONTRACT: 409 on an unpaired machine. */
  paired: boolean;
  /** Per-application rate limit (serve --rate-limit): 429 with Retry-After beyond it. */
  rateLimited?: boolean;
  /** A JSON body described in request-schemas.ts, or a schema of its own (POST /receive). */
  /** `rawPdf`: the body may also be the PDF itself (`Content-Type: application/pdf`, CONTRACT extension). */
  body?: { spec: BodySpec; rawPdf?: boolean } | { schema: JsonSchema; description: string };
  parameters?: Parameter[];
  /** `contentType` when the answer is not JSON (the signed PDF itself); `headers` it may carry. */
  success: { status: 200 | 202; schema: JsonSchema; description: string; contentType?: string; headers?: Record<string, { description: string; schema: JsonSchema }> };
  /** Statuses its own logic answers beyond those its checks imply. */
  errors?: number[];
  /** Spec §9: the endpoints a client must check `api_version` for. */
  sinceApiVersion?: number;
}

const limit = (def: number): Parameter => ({
  name: 'limit',
  in: 'query',
  schema: { type: 'integer', minimum: 1, default: def },
  description: `How many, newest first: digits only, at least 1; above ${LIMIT_MAX} (however large) is clamped to ${LIMIT_MAX}`,
});

/** The operations before the kinds' sign routes. */
const BEFORE_KINDS = [
  {
    id: 'health',
    method: 'GET',
    path: '/health',
    summary: 'Whether the service is up and paired, its version and api_version (no key needed)',
    auth: false,
    paired: false,
    success: { status: 200, schema: ref('Health'), description: 'The service is up' },
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    summary: 'This document (no key needed)',
    auth: false,
    paired: false,
    success: { status: 200, schema: { type: 'object' }, description: 'OpenAPI 3.1' },
  },
  {
    id: 'signPdf',
    method: 'POST',
    path: '/v1/pades/sign',
    summary:
      'Sign a PDF: PAdES baseline B-B, or B-T with a timestamp authority; the PDF is checked before the 202. Two transports: JSON with pdf_base64, or (for large documents) the PDF itself as an application/pdf body with the other fields as query parameters, each once (var.NAME=value per variable)',
    auth: true,
    paired: true,
    rateLimited: true,
    errors: [503],
    body: { spec: PADES_SIGN_BODY, rawPdf: true },
    parameters: [
      ...(['credential_key', 'design_key', 'reason', 'location', 'signer_name', 'level', 'certify'] as const).map((name) => ({
        name,
        in: 'query' as const,
        schema: name === 'level' ? { enum: ['B-B', 'B-T', 'B-LT', 'B-LTA'] } : name === 'certify' ? { enum: ['1', '2', '3'] } : { type: 'string', maxLength: 1000 },
        description: `application/pdf transport only${name === 'credential_key' ? ' (required there)' : ''}`,
      })),
    ],
    success: { status: 202, schema: ref('Accepted'), description: 'Accepted: read the outcome at GET /v1/results/{request_id}' },
  },
  {
    id: 'verifyPdf',
    method: 'POST',
    path: '/v1/pades/verify',
    summary:
      'Check the signatures of a PDF locally (extension; a report, not a signature; the document is not stored): signer, digest, ByteRange and coverage, changes after each signature and whether DocMDP allows them, the chain to the trust anchors of serve --trust, the timestamp, revocation from the embedded data only, the PAdES level reached, a verdict',
    auth: true,
    paired: false,
    // CONTRACT: verify and sync count against the wrapper's rate limit like the sign routes (each
    // parses a stranger's document or calls the platform, as costly as a sign request).
    rateLimited: true,
    body: { spec: PADES_VERIFY_BODY },
    success: { status: 200, schema: ref('VerifyReport'), description: 'The report' },
  },
] as const satisfies readonly Operation[];

/** The operations after the kinds' sign routes. */
const AFTER_KINDS = [
  {
    id: 'getResult',
    method: 'GET',
    path: '/v1/results/:request_id',
    summary: 'One signing result (only the application key that made the request sees it)',
    auth: true,
    paired: false,
    parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }, WAIT_PARAMETER],
    success: { status: 200, schema: ref('Result'), description: 'PENDING, DONE (pdf_base64, or r/s/v/y_parity/address/chain_id) or ERROR (error, error_id)' },
    errors: [404],
  },
  {
    id: 'getResultPdf',
    method: 'GET',
    path: '/v1/results/:request_id/pdf',
    summary: 'The signed PDF itself, streamed (extension for large documents); 404 until the request is DONE. With `wait`, a PENDING request is waited for first, so one call gives the document without its base64 in a result',
    auth: true,
    paired: false,
    parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }, WAIT_PARAMETER],
    success: {
      status: 200,
      schema: { type: 'string', format: 'binary' },
      description: 'The signed PDF',
      contentType: 'application/pdf',
      headers: {
        [WARNINGS_HEADER]: {
          description: "The result's `warnings` (a stamp moved, a stamp line shortened), present only when there are some: a JSON array of strings, every character beyond ASCII written as a \\u escape",
          schema: { type: 'string' },
        },
        [STAMP_HEADER]: {
          description: 'The result\'s `stamp` as JSON (`{"page":3,"page_count":3,"rect":[x1,y1,x2,y2]}`): where the visible signature is; absent for an invisible one',
          schema: { type: 'string' },
        },
      },
    },
    errors: [404],
  },
  {
    id: 'listResults',
    method: 'GET',
    path: '/v1/results',
    summary: "Recent results of this application key, newest first (recovers a lost request_id)",
    auth: true,
    paired: false,
    parameters: [limit(50)],
    success: { status: 200, schema: ref('ResultList'), description: 'The list' },
    sinceApiVersion: 2,
  },
  {
    id: 'listCredentials',
    method: 'GET',
    path: '/v1/credentials',
    summary: 'Cached credentials (a key limited to some credentials sees only those)',
    auth: true,
    paired: false,
    success: { status: 200, schema: ref('CredentialList'), description: 'The list (empty when unpaired)' },
  },
  {
    id: 'listDesigns',
    method: 'GET',
    path: '/v1/designs',
    summary: 'Cached stamp designs, each with its variables',
    auth: true,
    paired: false,
    success: { status: 200, schema: ref('DesignList'), description: 'The list (empty when unpaired)' },
  },
  {
    id: 'sync',
    method: 'POST',
    path: '/v1/sync',
    summary: 'Reload credentials and designs from the platform; on failure the old cache stays; entries that do not read (a certificate that is not DER, a stamp image over the caps) are left out and named in `skipped`',
    auth: true,
    paired: true,
    rateLimited: true,
    success: { status: 200, schema: ref('SyncAnswer'), description: 'Reloaded' },
    errors: [502, 503],
    sinceApiVersion: 2,
  },
  {
    id: 'listErrors',
    method: 'GET',
    path: '/v1/errors',
    summary: "This application key's recorded errors, newest first, without tracebacks",
    auth: true,
    paired: false,
    parameters: [limit(20), { name: 'request_id', in: 'query', schema: { type: 'string' }, description: 'Only the records of this request' }],
    success: { status: 200, schema: ref('ErrorList'), description: 'The list' },
    sinceApiVersion: 2,
  },
  {
    id: 'demoCrl',
    method: 'GET',
    path: '/pki/demo-ca.crl',
    summary: "The demo CA's CRL (RFC 5280, DER) at the URL its signer certificates name, so the demo signs B-LT offline (no key needed)",
    auth: false,
    paired: false,
    success: { status: 200, schema: { type: 'string', format: 'binary' }, description: 'The CRL', contentType: 'application/pkix-crl' },
    errors: [404],
  },
  {
    id: 'receive',
    method: 'POST',
    path: '/receive',
    summary: 'Platform push of a result (PLATFORM.md), HMAC-signed with the agent secret; wrapper credentials never open it',
    auth: false,
    paired: false,
    parameters: [
      { name: 'X-Platform-Timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^\\d{1,12}$' }, description: 'unix seconds, within 300 s' },
      { name: 'X-Platform-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }, description: 'HMAC-SHA256(agent_secret, timestamp + "." + raw body)' },
    ],
    body: { schema: ref('ReceiveBody'), description: 'At most 1 MiB' },
    success: { status: 200, schema: ref('ReceiveAnswer'), description: 'Taken (or a duplicate of one taken)' },
    errors: [401, 404],
  },
] as const satisfies readonly Operation[];

/** The operations of the service's own routes (each with its handler in app.ts); a kind's sign route has the generic one. */
export type OperationId = (typeof BEFORE_KINDS)[number]['id'] | (typeof AFTER_KINDS)[number]['id'];

/** A kind's sign route as an operation: keyed, paired, rate-limited, answered 202 like every sign route. */
export function kindOperation(route: KindRoute): Operation {
  return {
    id: route.id,
    method: 'POST',
    path: route.path,
    summary: route.summary,
    auth: true,
    paired: true,
    rateLimited: true,
    errors: [503],
    body: { spec: route.body },
    success: { status: 202, schema: ref('Accepted'), description: 'Accepted: read the outcome at GET /v1/results/{request_id}' },
  };
}

/** Every operation of a service signing these kinds, in the document's order. */
export function operationsOf(kinds: readonly SignatureKind[]): Operation[] {
  return [...BEFORE_KINDS, ...kinds.flatMap((k) => (k.route ? [kindOperation(k.route)] : [])), ...AFTER_KINDS];
}

/** The operations of the built-in kinds. */
export const OPERATIONS: readonly Operation[] = operationsOf(BUILT_IN_KINDS);

/** The error statuses an operation can answer: 403 and 500 everywhere, then what its checks imply. */
export function errorStatuses(op: Operation): number[] {
  const codes = new Set<number>([403, 500, ...(op.errors ?? [])]);
  if (op.auth) codes.add(401);
  if (op.rateLimited) codes.add(429);
  if (op.paired) codes.add(409);
  // A body may meet the memory budget for request bodies (middleware/body-memory.ts): 503 with Retry-After.
  if (op.body) codes.add(413).add(422).add(503);
  if (op.parameters?.some((p) => p.in === 'query')) codes.add(422);
  return [...codes].sort((a, b) => a - b);
}
