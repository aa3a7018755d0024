import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * How long a connection answered before its request body arrived goes on reading (and dropping)
 * input after the answer: time for a client that writes its whole body before it reads to reach
 * its read, bounded so that no client can keep the service busy. Bytes need no
 * bound of their own: a Content-Length body ends where it says (RFC 9112 §6.2); a chunked one
 * meets this clock.
 */
export const LINGER_MS = 5_000;

const closing = new WeakSet<Socket>();

/**
 * An answer given before the request body has arrived (413 over --max-body, 401, 404 on a POST)
 * ends the connection: the unread rest cannot be told from a next request without reading it
 * (RFC 9112 §9.6, §9.3), so the answer says `Connection: close`. Node then closes at once
 * (`socket.destroySoon()`, lib/_http_server.js resOnFinish), and closing with input unread makes
 * the kernel answer the client's next segment with a reset (RFC 1122 §4.2.2.13): a client still
 * writing its body, as many HTTP libraries do before they read, got EPIPE or ECONNRESET instead of
 * the answer. So on such a connection the close half-closes (FIN after the answer: the client
 * reads all of it and its end) while Node's parser drops the rest of the body, and closes when
 * the client ends its side or LINGER_MS have passed.
 */
export function closeGentlyWhenBodyUnread(listener: RequestListener): RequestListener {
  return (req, res) => {
    // RFC 9112 §9.6: no request may follow `Connection: close`; one pipelined behind a refused
    // body (Node's parser reads on while it drops that body) is not served.
    if (closing.has(req.socket)) return void req.socket.destroy();
    markWhenBodyUnread(req, res);
    listener(req, res);
  };
}

function markWhenBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (!declaresBody(req)) return;
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  // Checked when the status line goes out: only then is it known whether the body was read.
  res.writeHead = ((...args: unknown[]) => {
    const socket = res.socket;
    if (!req.complete && !res.headersSent && socket) {
      res.setHeader('Connection', 'close');
      socket.destroySoon = () => lingerThenClose(socket);
    }
    return writeHead.apply(res, args);
  }) as ServerResponse['writeHead'];
}

/** RFC 9112 §6.3: a request has content only when it carries Content-Length or Transfer-Encoding. */
function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Half-close now, close later. Nothing here reads the socket: Node's parser goes on reading and
 * drops the body (req._dump in resOnFinish); a 'data' listener would take the socket from the
 * parser (lib/_http_server.js unconsume) while it stood paused for the unread body, and stall it.
 */
function lingerThenClose(socket: Socket): void {
  if (closing.has(socket) || socket.destroyed) return;
  closing.add(socket);
  if (socket.readableEnded) {
    Socket.prototype.destroySoon.call(socket); // the client has sent everything: nothing to wait for
    return;
  }
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.end();
}
