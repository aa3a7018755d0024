import type { MiddlewareHandler } from 'hono';
import { RateLimitedError } from '../../domain/errors';
import type { ApiEnv } from '../types';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per application key: `perSecond` tokens a second, at most `burst` saved up; each
 * request takes one. Out of tokens: 429 with Retry-After, the whole seconds until the next token
 * (RFC 6585 §4; CONTRACT extension "429 with Retry-After when a wrapper exceeds its rate limit").
 * Keyed by the authenticated key only, so it runs after authentication: an unknown caller has no
 * bucket to fill (and learns nothing, CONTRACT order of checks).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: { perSecond: number; burst: number },
    /** Milliseconds on a clock that never goes back (performance.now). */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Takes a token for `key`; returns 0, or the seconds to wait when there is none. */
  take(key: string): number {
    const now = this.clock();
    const b = this.buckets.get(key) ?? { tokens: this.limit.burst, at: now };
    b.tokens = Math.min(this.limit.burst, b.tokens + ((now - b.at) / 1000) * this.limit.perSecond);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.limit.perSecond));
  }
}

/** The middleware: after wrapperAuth, before pairing and validation. */
export function rateLimit(limiter: RateLimiter | null): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (limiter) {
      const wait = limiter.take(c.get('wrapper').key);
      if (wait > 0) throw new RateLimitedError(`this application key is over its rate limit (serve --rate-limit); retry after ${wait} s`, wait);
    }
    await next();
  };
}
