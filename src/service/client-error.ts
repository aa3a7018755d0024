import type { Duplex } from 'node:stream';
import { LocalsignError } from '../domain/errors';

/**
 * What Node's HTTP parser refused, as one of our errors. Without a 'clientError' listener Node
 * writes a bare `400`/`431`/`408` with no body (lib/_http_server.js socketOnError), so a caller
 * got no error_id and no record existed.
 */
export interface ParserLimits {
  headerTimeoutMs: number;
  requestTimeoutMs: number;
  maxHeaderBytes: number;
}

export function parserError(error: NodeJS.ErrnoException, limits: ParserLimits): LocalsignError {
  const code = error.code ?? 'unknown';
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new LocalsignError('header_too_large', `request header section is larger than ${limits.maxHeaderBytes} bytes`, { type: 'http_parse' });
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new LocalsignError('request_timeout', `the request did not arrive in time: its headers within ${limits.headerTimeoutMs / 1000} s (serve --header-timeout), all of it within ${limits.requestTimeoutMs / 1000} s`, { type: 'timeout' });
  }
  // llhttp's codes name the fault (HPE_INVALID_METHOD, HPE_INVALID_HEADER_TOKEN, ...): safe to show.
  const reason = /^HPE_[A-Z_]+$/.test(code) ? code : 'unparseable';
  return new LocalsignError('bad_request', `malformed HTTP request (${reason})`, { type: 'http_parse' });
}

/**
 * The 'clientError' listener: answers with the uniform body when the socket can still take an
 * answer and none has started on it (Node's own condition), and closes the connection.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  o: { answer: (e: LocalsignError, context: Record<string, unknown>) => string; aborted: (message: string) => void; limits: ParserLimits },
): void {
  // A reset or a peer already gone has no one to answer.
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) return void socket.destroy();
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // The client ended its side in the middle of a message: it went away, nothing to answer and no
  // failure of ours (an aborted upload). A request under way says so itself (read-body.ts).
  if (error.code === 'HPE_INVALID_EOF_STATE') {
    if (!inProgress) o.aborted('a client closed the connection in the middle of its request headers');
    return void socket.destroy();
  }
  if (inProgress?.headersSent) return void socket.destroy();
  socket.end(o.answer(parserError(error, o.limits), { code: error.code ?? 'unknown' }));
}
