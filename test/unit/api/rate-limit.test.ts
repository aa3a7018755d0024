import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { rateLimit, RateLimiter } from '../../../src/api/middleware/rate-limit';
import { openApiDocument } from '../../../src/api/openapi';
import { RateLimitedError } from '../../../src/domain/errors';

describe('RateLimiter (a token bucket per application key)', () => {
  it('lets a burst through, then refuses with the seconds until the next token', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(1);
    now = 499;
    expect(limiter.take('a')).toBe(1);
    now = 500; // one token back after half a second at 2/s
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    now = 100_000; // never more than the burst saved up
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0, 1]);
  });

  it('gives each key its own bucket', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => 0);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('b')]).toEqual([0, 1, 0]);
  });

  it('says Retry-After in whole seconds, at least 1, for slow rates too', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => 0);
    limiter.take('a');
    expect(limiter.take('a')).toBe(1);
    const slow = new RateLimiter({ perSecond: 1, burst: 1 }, () => 0);
    slow.take('s');
    slow.take('s');
    expect(slow.take('s')).toBe(1);
  });
});

describe('rateLimit middleware', () => {
  it('throws RateLimitedError with the wait; off (null) lets everything through', async () => {
    const app = new Hono<{ Variables: { wrapper: { key: string }; bodyTimeoutMs: number } }>();
    app.use('*', async (c, next) => {
      c.set('wrapper', { key: 'wrp_a' });
      await next();
    });
    app.get('/on', rateLimit(new RateLimiter({ perSecond: 1, burst: 1 }, () => 0)) as never, (c) => c.text('ok'));
    app.get('/off', rateLimit(null) as never, (c) => c.text('ok'));
    let caught: unknown;
    app.onError((e, c) => ((caught = e), c.text('limited', 429)));
    expect((await app.request('/on')).status).toBe(200);
    expect((await app.request('/on')).status).toBe(429);
    expect(caught).toBeInstanceOf(RateLimitedError);
    expect((caught as RateLimitedError).retryAfterSeconds).toBe(1);
    expect((caught as RateLimitedError).message).toBe('this application key is over its rate limit (serve --rate-limit); retry after 1 s');
    for (let i = 0; i < 5; i += 1) expect((await app.request('/off')).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents 429 with Retry-After on both sign routes, verify and sync (CONTRACT), and on nothing else', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    const limited = ['/v1/pades/sign', '/v1/blockchain/sign', '/v1/pades/verify', '/v1/sync'];
    for (const p of limited) expect(paths[p]!.post!.responses['429']?.headers, p).toHaveProperty('Retry-After');
    const others = Object.entries(paths).flatMap(([p, ops]) => Object.values(ops).filter((op) => '429' in op.responses).map(() => p));
    expect(others.sort()).toEqual([...limited].sort());
  });
});
