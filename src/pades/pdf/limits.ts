/**
 * The engine's refusal of documents that cost more than we spend on anyone: a
 * PdfInputError, so the answer is a 422 naming the limit and never a 500 or a dead process.
 */
import { PdfInputError } from '../../domain/errors';

/** A PdfInputError of its own class, so code that reports a broken part (rather than refusing) lets this one through. */
export class TooComplexError extends PdfInputError {}

export function tooComplex(what: string, cause?: unknown): TooComplexError {
  return new TooComplexError(`document too complex: ${what}`, cause === undefined ? undefined : { cause });
}

/**
 * A limit reached, ours (TooComplexError) or V8's (RangeError: a Map over its maximum size, an
 * array or string too long, a stack too deep; refuseRangeErrors turns it into ours). Code that
 * reports a broken part of a damaged document and goes on lets these through: a refusal is never
 * taken for damage.
 */
export function isLimit(e: unknown): boolean {
  return e instanceof TooComplexError || e instanceof RangeError;
}

/** `read()`, or undefined when it fails for any reason but a limit (isLimit), which passes through. */
export function unlessDamaged<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (isLimit(e)) throw e;
    return undefined;
  }
}

/**
 * Runs `read` and turns a RangeError escaping it into tooComplex: V8 throws one when a document
 * drives a structure past its limits (Map size, array or string length, call stack depth), and
 * that is the document's fault, never the service's (the probe's /W [0 0 0] answered a 500).
 */
export function refuseRangeErrors<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof RangeError) throw tooComplex(e.message, e);
    throw e;
  }
}
