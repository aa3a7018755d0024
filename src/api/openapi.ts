import { API_VERSION, VERSION } from '../config/version';
import { BUILT_IN_ENGINES } from '../signing/engines';
import { BUILT_IN_KINDS } from '../signing/kinds';
import { errorStatuses, operationsOf, type Operation } from './operations';
import { bodySchema, type JsonSchema } from './request-schemas';
import { componentSchemas, ref, type DescribedTables } from './response-schemas';

/** What each error status means (CONTRACT "HTTP: general", order of checks); the body is always Error. */
const ERROR_MEANING: Record<number, string> = {
  401: 'Missing or invalid credentials',
  403: 'Host or Origin not served (every path), or a credential this application key may not use',
  404: 'No such request for this application key',
  409: 'This machine is not paired with a platform (run `localsign init`)',
  413: 'Request body over the limit (serve --max-body; 1 MiB for /receive)',
  422: 'Invalid input; the message names the field and what was expected',
  429: 'This application key is over its rate limit (serve --rate-limit); or, on the sign routes, over its disk quota (serve --disk-quota), or sends a chip_pin before its wait after a wrong one is over (the wait doubles with each wrong chip_pin in a row, per application and per card); Retry-After says when to try again',
  500: 'Unexpected failure, recorded under its error_id',
  502: 'The platform is unreachable or failing; the old cache stays',
  503: 'The config dir cannot be written (disk full or read-only), or (with Retry-After) the service holds its budget of request bodies from other callers (serve --max-body-memory); nothing was accepted, retry once it can',
};

/** `/v1/results/:request_id` as OpenAPI writes it: `/v1/results/{request_id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}

/** The service's proof of itself (middleware/wrapper-auth.ts): asked on /health and every keyed route. */
const CHALLENGE_PARAMETER = {
  name: 'X-Localsign-Challenge',
  in: 'header',
  schema: { type: 'string', pattern: '^[0-9a-f]{32,128}$' },
  description: 'Random lowercase hex (16 to 64 bytes); with X-Wrapper-Key, the answer carries X-Localsign-Proof for it. A request signed with X-Wrapper-Signature is answered for its nonce without it',
} as const;
const PROOF_RESPONSE_HEADER = {
  'X-Localsign-Proof': {
    description: "hex HMAC-SHA256(HMAC-SHA256(SHA-256(secret), 'localsign-service-proof-key-v1'), 'localsign-service-proof-v1\\n' key '\\n' challenge): only the service that holds this key can compute it; check it before sending a secret, a document or a PIN",
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
} as const;

function operationObject(op: Operation): JsonSchema {
  const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
  const proves = op.auth || op.id === 'health';
  const headers = { ...(op.success.headers ?? {}), ...(proves ? PROOF_RESPONSE_HEADER : {}) };
  const parameters = [...(op.parameters ?? []), ...(proves ? [CHALLENGE_PARAMETER] : [])];
  const responses: Record<string, JsonSchema> = {
    [String(op.success.status)]: {
      description: op.success.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { [op.success.contentType ?? 'application/json']: { schema: op.success.schema } },
    },
  };
  for (const code of errorStatuses(op)) {
    responses[String(code)] = {
      description: ERROR_MEANING[code],
      ...(code === 429 || code === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before the next request', schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: json(ref('Error')),
    };
  }
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.auth ? { security: [{ wrapperKey: [], wrapperSignature: [] }, { wrapperKey: [], wrapperSecret: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            ...('spec' in op.body ? {} : { description: op.body.description }),
            content: {
              ...json('spec' in op.body ? bodySchema(op.body.spec) : op.body.schema),
              // The raw transport (CONTRACT extension): the PDF itself, the fields as query parameters.
              ...('spec' in op.body && op.body.rawPdf ? { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } : {}),
            },
          },
        }
      : {}),
    responses,
    // Spec §9: a client that does not control the installed version checks api_version first.
    ...(op.sinceApiVersion ? { 'x-since-api-version': op.sinceApiVersion } : {}),
  };
}

const BUILT_IN: DescribedTables = { kinds: BUILT_IN_KINDS, engines: BUILT_IN_ENGINES };

/**
 * The OpenAPI 3.1 document of the API (CONTRACT `GET /openapi.json`), from operations.ts and the
 * kinds' and engines' tables: the built-in ones (the build writes it as dist/openapi.json), or a
 * service's own.
 */
export function buildOpenApiDocument(tables: DescribedTables = BUILT_IN): JsonSchema & { paths: Record<string, Record<string, JsonSchema>> } {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of operationsOf(tables.kinds)) {
    (paths[openApiPath(op.path)] ??= {})[op.method.toLowerCase()] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'localsign local signing service',
      version: VERSION,
      description: `PAdES PDF signatures and EVM transaction-hash signatures over a loopback HTTP API (api_version ${API_VERSION}). Signing is asynchronous: a sign call answers 202 with a request_id; read GET /v1/results/{request_id} (?wait=N holds a PENDING answer). Every failure answers {error, error_id}.`,
    },
    servers: [{ url: 'http://127.0.0.1:8300' }],
    components: {
      securitySchemes: {
        wrapperKey: { type: 'apiKey', in: 'header', name: 'X-Wrapper-Key' },
        wrapperSecret: { type: 'apiKey', in: 'header', name: 'X-Wrapper-Secret', description: "The application's secret (spec §5). Send it only to a service that proved itself: GET /health with X-Wrapper-Key and X-Localsign-Challenge answers X-Localsign-Proof" },
        wrapperSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Wrapper-Signature',
          description:
            "Instead of X-Wrapper-Secret, so the secret never crosses the socket: t=<unix seconds>,n=<32-128 lowercase hex nonce>,s=<hex HMAC-SHA256(HMAC-SHA256(SHA-256(secret), 'localsign-request-key-v1'), 'localsign-request-v1\\n' METHOD '\\n' path?query '\\n' t '\\n' n '\\n' key)>; the answer carries X-Localsign-Proof for the nonce (docs/integrators.md)",
        },
      },
      schemas: componentSchemas(tables),
    },
    paths,
  };
}

const built = new WeakMap<DescribedTables, ReturnType<typeof buildOpenApiDocument>>();

/** The document, built on first use: nothing on the way to the first /health needs it. */
export function openApiDocument(tables: DescribedTables = BUILT_IN): ReturnType<typeof buildOpenApiDocument> {
  let document = built.get(tables);
  if (!document) {
    document = buildOpenApiDocument(tables);
    built.set(tables, document);
  }
  return document;
}
