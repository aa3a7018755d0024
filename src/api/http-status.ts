import type { ErrorKind } from '../errors/errors';

/** The single mapping from error kind to HTTP status (spec §7 status codes, CONTRACT). */
export const STATUS_OF_KIND: Record<ErrorKind, 401 | 403 | 404 | 405 | 409 | 413 | 422 | 500 | 502> = {
  invalid: 422,
  unauthorized: 401,
  forbidden: 403,
  not_paired: 409,
  not_found: 404,
  method_not_allowed: 405,
  too_large: 413,
  upstream: 502,
  internal: 500,
};
