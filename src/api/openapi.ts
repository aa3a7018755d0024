import { API_VERSION, VERSION } from '../config/version';
import { errorStatuses, OPERATIONS, type Operation } from './operations';
import { bodySchema, type JsonSchema } from './request-schemas';
import { COMPONENT_SCHEMAS, ref } from './response-schemas';

/** What each error status means (CONTRACT "HTTP: general", order of checks); the body is always Error. */
const ERROR_MEANING: Record<number, string> = {
  401: 'Missing or invalid credentials',
  403: 'Host or Origin not served (every path), or a credential this application key may not use',
  404: 'No such request for this application key',
  409: 'This machine is not paired with a platform (run `localsign init`)',
  413: 'Request body over the limit (serve --max-body; 1 MiB for /receive)',
  422: 'Invalid input; the message names the field and what was expected',
  429: 'This application key is over its rate limit (serve --rate-limit), or (sign routes) sends a chip_pin before its wait after a wrong one is over (the wait doubles with each wrong chip_pin in a row, per application and per card); Retry-After says when to try again',
  500: 'Unexpected failure, recorded under its error_id',
  502: 'The platform is unreachable or failing; the old cache stays',
  503: 'The config dir cannot be written (disk full or read-only); nothing was accepted, retry once it can',
};

/** `/v1/results/:request_id` as OpenAPI writes it: `/v1/results/{request_id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}

function operationObject(op: Operation): JsonSchema {
  const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
  const responses: Record<string, JsonSchema> = {
    [String(op.success.status)]: {
      description: op.success.description,
      ...(op.success.headers ? { headers: op.success.headers } : {}),
      content: { [op.success.contentType ?? 'application/json']: { schema: op.success.schema } },
    },
  };
  for (const code of errorStatuses(op)) {
    responses[String(code)] = {
      description: ERROR_MEANING[code],
      ...(code === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait before the next request', schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: json(ref('Error')),
    };
  }
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.auth ? { security: [{ wrapperKey: [], wrapperSecret: [] }] } : {}),
    ...(op.parameters ? { parameters: op.parameters } : {}),
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

/** The OpenAPI 3.1 document of the API as built (CONTRACT `GET /openapi.json`), from operations.ts. */
export function buildOpenApiDocument(): JsonSchema & { paths: Record<string, Record<string, JsonSchema>> } {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of OPERATIONS as readonly Operation[]) {
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
        wrapperSecret: { type: 'apiKey', in: 'header', name: 'X-Wrapper-Secret' },
      },
      schemas: COMPONENT_SCHEMAS,
    },
    paths,
  };
}

let built: ReturnType<typeof buildOpenApiDocument> | null = null;

/** The document, built on first use: nothing on the way to the first /health needs it (issue 10). */
export function openApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  built ??= buildOpenApiDocument();
  return built;
}
