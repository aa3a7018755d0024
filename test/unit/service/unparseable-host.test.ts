import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { neutraliseUnparseableHost } from '../../../src/service/server';

const hostAfter = (host: string): string | undefined => {
  const req = { headers: { host } } as unknown as IncomingMessage;
  neutraliseUnparseableHost(req);
  return req.headers.host;
};

describe('neutraliseUnparseableHost (the Host headers node-server cannot build a URL from)', () => {
  it('keeps a parseable Host each time, and swaps an unparseable one however many were seen before', () => {
    const bad = ['localhost:abc', '[::1', 'localhost@evil.example', '127.0.0.1:80:80'];
    const swappedTwice = () => {
      for (const host of bad) {
        expect(hostAfter(host)).toBe('unparseable-host.invalid');
        expect(hostAfter(host)).toBe('unparseable-host.invalid');
      }
    };
    for (let i = 0; i < 3; i += 1) expect(hostAfter('127.0.0.1:8300')).toBe('127.0.0.1:8300');
    // While the remembered hosts have room: an unparseable one is never among them.
    swappedTwice();
    // More distinct parseable hosts than it remembers: the ones past the bound are parsed each time.
    for (let port = 1; port <= 100; port += 1) expect(hostAfter(`localhost:${port}`)).toBe(`localhost:${port}`);
    swappedTwice();
    expect(hostAfter('[::1]:8300')).toBe('[::1]:8300');
  });
});
