export { LocalsignClient, type FinalResult, type LocalsignClientOptions, type SignPdfInput, type StampLocation, type WaitOptions } from './client.js';
export { LocalsignAnswerError, LocalsignApiError, LocalsignApiVersionError, LocalsignConnectionError, LocalsignServiceProofError, type ApiErrorKind } from './errors.js';
export { fromBase64, toBase64 } from './base64.js';
export type * from './api-types.js';
