/**
 * What the client throws. Every failure the service answers carries its HTTP `status` and the
 * `error_id` under which the service recorded it (GET /v1/errors, errors.jsonl, `localsign
 * report`); `kind` names what to do about it (docs/integrators.md "Errors").
 */

export type ApiErrorKind =
  | 'unauthorized' // 401: key or secret missing, wrong or revoked
  | 'forbidden' // 403: Host/Origin not served, or a credential this key may not use
  | 'not_found' // 404: no such request for this key
  | 'method_not_allowed' // 405
  | 'not_paired' // 409: run `localsign init`
  | 'too_large' // 413: body over `serve --max-body`
  | 'invalid' // 422: the message names the field
  | 'rate_limited' // 429
  | 'upstream' // 502: the platform is unreachable or failing
  | 'unavailable' // 503: the service's config dir cannot be written (disk full or read-only)
  | 'internal' // 500
  | 'unknown';

const KIND_OF_STATUS: Record<number, ApiErrorKind> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'not_paired',
  413: 'too_large',
  422: 'invalid',
  429: 'rate_limited',
  500: 'internal',
  502: 'upstream',
  503: 'unavailable',
};

/** The service answered a failure: `{error, error_id}` with an HTTP status. */
export class LocalsignApiError extends Error {
  override readonly name = 'LocalsignApiError';
  readonly kind: ApiErrorKind;
  constructor(
    message: string,
    readonly status: number,
    /** `err_…`: the record of this failure on the service's machine; null when the body had none. */
    readonly error_id: string | null,
    /** `Retry-After` in seconds (429), when given. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.kind = KIND_OF_STATUS[status] ?? 'unknown';
  }
}

/** No answer at all: the service is not running at that address, or the connection broke. */
export class LocalsignConnectionError extends Error {
  override readonly name = 'LocalsignConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Spec §9: `GET /v1/results`, `GET /v1/errors` and `POST /v1/sync` exist from api_version 2
 * (localsign 0.2.0); an older service is refused before the call instead of answering a 404.
 */
export class LocalsignApiVersionError extends Error {
  override readonly name = 'LocalsignApiVersionError';
  constructor(
    readonly operation: string,
    readonly required: number,
    readonly found: number,
    readonly version: string | null,
  ) {
    super(`${operation} needs api_version ${required} (localsign 0.2.0 or later); the service at this address reports api_version ${found}${version ? ` (version ${version})` : ''}: upgrade it`);
  }
}

/**
 * What answered at the service's address did not prove it is the localsign service that holds this
 * application's key (X-Localsign-Proof missing, or not the HMAC of this key's secret): another
 * program on that address, a service older than this client, or a wrong or revoked key or secret.
 * The client sends it nothing more: no document, no PIN, and never the secret, and believes none
 * of its answer.
 */
export class LocalsignServiceProofError extends Error {
  override readonly name = 'LocalsignServiceProofError';
  constructor(
    /** The base URL the client called. */
    readonly url: string,
    /** The HTTP status of the answer that did not prove the service. */
    readonly status: number,
    /** `missing`: no X-Localsign-Proof; `mismatch`: one that is not this key's. */
    readonly reason: 'missing' | 'mismatch',
    detail: string,
  ) {
    super(`the peer at ${url} did not prove it is the localsign service that holds this key: ${detail}`);
  }
}

/**
 * A signing result that does not match the credential it was asked of: an EVM signature that does
 * not recover to the credential's address over the requested hash, a PDF whose last signature is
 * not the credential's certificate's, or whose bytes are not what that signature and the input
 * say. The result is not returned.
 */
export class LocalsignAnswerError extends Error {
  override readonly name = 'LocalsignAnswerError';
  constructor(
    readonly requestId: string,
    /** The credential the request named; null for a request this client did not make. */
    readonly credentialKey: string | null,
    /** What did not match, in words. */
    readonly problem: string,
  ) {
    super(`the result of ${requestId} does not match ${credentialKey ? `credential ${credentialKey}` : "this key's credentials"}, so it was not used: ${problem}`);
  }
}
