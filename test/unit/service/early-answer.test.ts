import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeGentlyWhenBodyUnread } from '../../../src/service/early-answer';

/**
 * A real node:http server behind closeGentlyWhenBodyUnread, whose handler answers every POST at
 * once without reading its body (as a 413 or 401 does) and reads nothing else either.
 */
let server: Server;
let served: string[];
/** Resolves when the server's side of the latest connection has closed: no request can follow. */
let serverSideClosed: Promise<unknown>;

async function listen(): Promise<number> {
  served = [];
  server = createServer(
    closeGentlyWhenBodyUnread((req, res) => {
      served.push(`${req.method} ${req.url}`);
      if (req.url === '/read') {
        req.resume();
        req.on('end', () => res.end('read'));
        return;
      }
      res.writeHead(413, { 'content-type': 'text/plain' });
      res.end('too large');
    }),
  );
  server.on('connection', (socket) => (serverSideClosed = new Promise((resolve) => socket.once('close', resolve))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Writes `bytes` on a fresh socket, reads until both sides have closed, returns what it answered. */
async function exchange(port: number, bytes: (string | Buffer)[]): Promise<string> {
  const sock = connect({ port, host: '127.0.0.1' });
  let text = '';
  sock.on('data', (d: Buffer) => (text += d.toString('latin1')));
  sock.on('error', () => undefined);
  const closed = new Promise((resolve) => sock.once('close', resolve));
  for (const b of bytes) sock.write(b);
  await closed;
  await serverSideClosed;
  return text;
}

describe('closeGentlyWhenBodyUnread', () => {
  it('answers a request whose body it did not read with Connection: close', async () => {
    const port = await listen();
    const text = await exchange(port, ['POST /refuse HTTP/1.1\r\nhost: x\r\ncontent-length: 4000000\r\n\r\n', Buffer.alloc(65536)]);
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(text.toLowerCase()).toContain('\r\nconnection: close\r\n');
  });

  it('serves no request pipelined behind a body it refused (RFC 9112 §9.6)', async () => {
    const port = await listen();
    const body = 2 * 1024 * 1024;
    const text = await exchange(port, [
      `POST /refuse HTTP/1.1\r\nhost: x\r\ncontent-length: ${body}\r\n\r\n`,
      Buffer.alloc(body, 0x20),
      'POST /read HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}',
    ]);
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(served).toEqual(['POST /refuse']);
  });

  it('keeps a connection alive when the body was read, or there was none', async () => {
    const port = await listen();
    const text = await exchange(port, [
      'POST /read HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}',
      'GET /refuse HTTP/1.1\r\nhost: x\r\n\r\n',
      'POST /read HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
    ]);
    expect(served).toEqual(['POST /read', 'GET /refuse', 'POST /read']);
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 413', 'HTTP/1.1 200']);
    expect(text.match(/connection: [a-z-]+/gi)).toEqual(['Connection: keep-alive', 'Connection: keep-alive', 'Connection: close']);
  });
});
