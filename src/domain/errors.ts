/**
 * One error base for the whole service. Only `api/app.ts` maps a kind to an HTTP status and only
 * `cli/output.ts` maps it to an exit code: every other layer throws these and never formats them.
 */
export type ErrorKind =
  | 'bad_request' // 400: a message HTTP itself cannot parse (RFC 9110 §15.5.1)
  | 'request_timeout' // 408: headers or body did not arrive in time (RFC 9110 §15.5.9)
  | 'header_too_large' // 431: the header section is over Node's limit (RFC 6585 §5)
  | 'rate_limited' // 429: this application key is over its rate limit (RFC 6585 §4)
  | 'invalid' // 422: the caller sent something we will not act on
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_paired' // 409
  | 'not_found' // 404
  | 'method_not_allowed' // 405
  | 'too_large' // 413
  | 'unavailable' // 503: the config dir cannot be written (disk full, read-only); retry later
  | 'upstream' // 502: the chip, the platform or the TSA failed
  | 'internal'; // 500

export class LocalsignError extends Error {
  readonly kind: ErrorKind;
  /** Short category shown as `type` in error records, e.g. `pdf_input`, `chip`. */
  readonly type: string;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown; type?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.type = options?.type ?? kind;
  }
}

/** A request field failed validation; the message names the field and what was expected. */
export class InvalidInputError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid', message, { ...options, type: 'validation' });
  }
}

/** The PDF handed to us cannot be signed as it is (not a PDF, encrypted, certified P=1, broken xref). */
export class PdfInputError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid', message, { ...options, type: 'pdf_input' });
  }
}

/**
 * A document over the per-document time or memory limit of the PDF workers: a 422 that
 * names the limit (CONTRACT: "a document too costly to process … is a 422 naming the limit").
 */
export class DocumentLimitError extends LocalsignError {
  constructor(message: string) {
    super('invalid', message, { type: 'document_limit' });
  }
}

/** Building the signed output failed after the input was accepted. */
export class SigningError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, { ...options, type: 'signing' });
  }
}

/** The signing chip (software or PKCS#11) failed: token removed, PIN wrong, module missing. */
export class ChipError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('upstream', message, { ...options, type: 'chip' });
  }
}

/** The remote platform or a timestamp authority failed or is unreachable. */
export class PlatformError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('upstream', message, { ...options, type: 'platform' });
  }
}

/**
 * The revocation data B-LT needs cannot be had (responder down, answer unusable) or says the
 * certificate is revoked: the message names the certificate and the URL.
 */
export class RevocationError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('upstream', message, { ...options, type: 'revocation' });
  }
}

/** Configuration that prevents the service from starting (unsafe permissions, unreadable files). */
export class ConfigurationError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, { ...options, type: 'configuration' });
  }
}

/**
 * The config dir refused a write: no space (ENOSPC, EDQUOT), read-only (EROFS) or a failing disk
 * (EIO). Nothing half-written stays (the store undoes a partial append, removes a partial temp
 * file); the service goes on and takes writes again once the disk does.
 */
export class StorageError extends LocalsignError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, { ...options, type: 'storage' });
  }
}

export function isStorageError(value: unknown): value is StorageError {
  return value instanceof StorageError;
}

/**
 * An application key over its rate limit, or sending a `chip_pin` before its wait after a wrong
 * one is over (type `chip_pin`): 429; `retryAfterSeconds` goes to Retry-After (RFC 9110 §10.2.3).
 */
export class RateLimitedError extends LocalsignError {
  constructor(message: string, readonly retryAfterSeconds: number, type: 'rate_limit' | 'chip_pin' = 'rate_limit') {
    super('rate_limited', message, { type });
  }
}

/**
 * The service is busy with what other callers sent (request bodies held in memory, connections):
 * 503, and `retryAfterSeconds` goes to Retry-After. Nothing was taken; the same request may be
 * sent again.
 */
export class BusyError extends LocalsignError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('unavailable', message, { type: 'busy' });
  }
}

export function isLocalsignError(value: unknown): value is LocalsignError {
  return value instanceof LocalsignError;
}
