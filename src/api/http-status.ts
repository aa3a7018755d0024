import type { ErrorKind } from '../domain/errors';

/** The single mapping from error kind to HTTP status (spec §7 status codes, CONTRACT). */
export const STATUS_OF_KIND: Record<ErrorKind, 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 422 | 429 | 431 | 500 | 502 | 503> = {
  bad_request: 400,
  request_timeout: 408,
  header_too_large: 431,
  rate_limited: 429,
  invalid: 422,
  unauthorized: 401,
  forbidden: 403,
  not_paired: 409,
  not_found: 404,
  method_not_allowed: 405,
  too_large: 413,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};
