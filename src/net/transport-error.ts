import { LocalsignError } from '../domain/errors';

/**
 * A remote service could not be reached or answered badly at the transport level. `retryable`
 * says whether trying again may help (timeouts, refused or dropped connections), which the
 * platform client's backoff uses (PLATFORM.md "Failures"). Maps to 502 like every upstream fault.
 */
export class TransportError extends LocalsignError {
  readonly retryable: boolean;
  /** The caller's own AbortSignal ended the call (a request timeout), not the network. */
  readonly aborted: boolean;
  /** No answer within the call's time. */
  readonly timedOut: boolean;
  constructor(message: string, o: { retryable: boolean; cause?: unknown; aborted?: boolean; timedOut?: boolean }) {
    super('upstream', message, { cause: o.cause, type: 'network' });
    this.retryable = o.retryable;
    this.aborted = o.aborted ?? false;
    this.timedOut = o.timedOut ?? false;
  }
}
