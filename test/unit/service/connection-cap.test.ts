import { createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionCap } from '../../../src/service/connection-cap';

/** A real HTTP server on loopback with the cap; /slow answers only when told to. */
let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())));

async function serve(cap: ConnectionCap): Promise<{ port: number; release: () => void }> {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  server = createServer((req, res) => {
    if (req.url === '/slow') void held.then(() => res.end('slow'));
    else res.end('ok');
  });
  cap.attach(server);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, release };
}

const open = (port: number) => new Promise<Socket>((resolve) => {
  const s = connect(port, '127.0.0.1', () => resolve(s));
  s.on('error', () => undefined);
});
const closed = (s: Socket) => new Promise<boolean>((resolve) => (s.destroyed ? resolve(true) : (s.once('close', () => resolve(true)), setTimeout(() => resolve(s.destroyed), 500))));
const get = (port: number, path = '/') =>
  new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(text));
    }).on('error', reject).end();
  });
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('ConnectionCap', () => {
  it('beyond the cap a new connection closes the one idle longest, and is served', async () => {
    const cap = new ConnectionCap(4, null);
    const { port } = await serve(cap);
    const idle = [];
    for (let i = 0; i < 4; i++) idle.push(await open(port));
    await settle();
    expect(cap.size).toBe(4);
    expect(await get(port)).toBe('ok');
    expect(await closed(idle[0]!)).toBe(true);
    expect(idle.slice(1).some((s) => s.destroyed)).toBe(false);
    // A flood of idle connections only pushes out its own oldest: the caller who asks is answered.
    for (let i = 0; i < 20; i++) await open(port);
    expect(await get(port)).toBe('ok');
    await settle();
    expect(cap.size).toBeLessThanOrEqual(4);
  });

  it('a connection with a request in progress is never closed for another; when all are busy the new one is', async () => {
    const cap = new ConnectionCap(2, null);
    const { port, release } = await serve(cap);
    const slow = [get(port, '/slow'), get(port, '/slow')];
    await settle();
    const late = await open(port);
    expect(await closed(late)).toBe(true);
    release();
    expect(await Promise.all(slow)).toEqual(['slow', 'slow']);
    expect(await get(port)).toBe('ok');
  });

  it('stays under the process\'s own descriptor limit', () => {
    expect(new ConnectionCap(512, 256).max).toBe(128);
    expect(new ConnectionCap(512, 20_000).max).toBe(512);
    expect(new ConnectionCap(512, 100).max).toBe(8);
  });
});
