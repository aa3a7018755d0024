import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { hostCheck } from '../../../src/api/middleware/host-check';
import { isLoopbackAddress } from '../../../src/config/loopback';

describe('isLoopbackAddress', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST'])('%s is loopback', (a) => {
    expect(isLoopbackAddress(a)).toBe(true);
  });
  it.each(['0.0.0.0', '::', '192.0.2.2', '10.0.0.1', '::ffff:192.0.2.2', 'fd00::2', '1::1', 'localhost.example', 'example.com', ''])('%s is not', (a) => {
    expect(isLoopbackAddress(a)).toBe(false);
  });
});

describe('hostCheck with a peer on another machine', () => {
  const app = new Hono();
  app.use('*', hostCheck({ allowHosts: ['Signer.Example'], allowOrigins: [] }));
  app.get('/x', (c) => c.text('ok'));
  app.onError((e, c) => c.text(e.message, 403));
  const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

  it('a loopback Host name from a remote peer is refused; an --allow-host name is served', async () => {
    for (const host of ['localhost', '127.0.0.1:8300', '[::1]']) {
      const res = await app.request(`http://${host}/x`, { headers: { host } }, from('192.0.2.7'));
      expect([res.status, await res.text()]).toEqual([403, 'requests from another machine must name an --allow-host host in Host']);
    }
    const ok = await app.request('http://signer.example/x', { headers: { host: 'signer.example:8300' } }, from('::ffff:192.0.2.7'));
    expect([ok.status, await ok.text()]).toEqual([200, 'ok']);
  });

  it('loopback peers are served loopback names as before', async () => {
    for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const res = await app.request('http://localhost/x', { headers: { host: 'localhost:8300' } }, from(peer));
      expect(res.status).toBe(200);
    }
  });
});
