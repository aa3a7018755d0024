import { backoffDelay, PairingRevokedError, sleep } from './client';
import type { PlatformResult } from './wire';
import { TransportError } from '../../net/transport-error';

export type FinalPlatformResult = Exclude<PlatformResult, { status: 'PENDING' }>;

/** Polling: first poll after about half a second, then doubling, at most every 10 s. */
const POLL_BASE_MS = 500;
const POLL_CAP_MS = 10_000;
/** Pushes for requests nobody waits on yet (a push racing the job's submission), bounded. */
const EARLY_MAX = 1_000;

/**
 * Where a platform result meets the job waiting for it (PLATFORM.md "Remote signing"): by push
 * to /receive or by polling with backoff and jitter, whichever comes first. A desktop behind NAT
 * never gets pushes, so polling always runs; a push only makes the answer arrive sooner. The
 * first result for a request wins; later ones are duplicates and change nothing.
 */
export class PlatformResultHub {
  private readonly waiters = new Map<string, (result: FinalPlatformResult) => void>();
  private readonly early = new Map<string, FinalPlatformResult>();
  /** Requests whose waiter got a pushed result: until their job ends, a push again is a duplicate. */
  private readonly delivered = new Set<string>();

  /** A pushed result. `duplicate` when this request already has one (idempotent, first wins). */
  deliver(requestId: string, result: FinalPlatformResult): 'accepted' | 'duplicate' {
    if (this.delivered.has(requestId) || this.early.has(requestId)) return 'duplicate';
    const waiter = this.waiters.get(requestId);
    if (waiter) {
      this.waiters.delete(requestId);
      this.delivered.add(requestId);
      waiter(result);
      return 'accepted';
    }
    if (this.early.size >= EARLY_MAX) this.early.delete(this.early.keys().next().value!);
    this.early.set(requestId, result);
    return 'accepted';
  }

  /** Forgets a request that ended (its early push, if any, can no longer be used). */
  forget(requestId: string): void {
    this.early.delete(requestId);
    this.waiters.delete(requestId);
    this.delivered.delete(requestId);
  }

  /**
   * Waits for the final result of `requestId`: a push, or a poll that is no longer PENDING.
   * `resubmit` runs when the platform answers a poll with 404 (it lost or never got the request).
   * Transport failures of a poll are retried; a revoked pairing or `signal` ends the wait.
   */
  async wait(
    requestId: string,
    o: { signal: AbortSignal; poll: (signal: AbortSignal) => Promise<PlatformResult | 'unknown'>; resubmit: () => Promise<void>; resumed?: boolean; random?: () => number },
  ): Promise<FinalPlatformResult> {
    const early = this.early.get(requestId);
    if (early) {
      this.early.delete(requestId);
      return early;
    }
    o.signal.throwIfAborted();
    const pushed = new AbortController();
    const signal = AbortSignal.any([o.signal, pushed.signal]);
    let fromPush: FinalPlatformResult | null = null;
    this.waiters.set(requestId, (result) => {
      fromPush = result;
      pushed.abort();
    });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          // A resumed request asks at once: the platform may have answered while we were down.
          if (attempt > 0 || !o.resumed) await sleep(backoffDelay(attempt, { baseMs: POLL_BASE_MS, capMs: POLL_CAP_MS, random: o.random }), signal);
          const polled = await o.poll(signal);
          if (polled === 'unknown') await o.resubmit();
          else if (polled.status !== 'PENDING') return polled;
        } catch (error) {
          if (fromPush) return fromPush;
          o.signal.throwIfAborted();
          if (error instanceof PairingRevokedError || !(error instanceof TransportError && error.retryable)) throw error;
        }
      }
    } finally {
      this.waiters.delete(requestId);
    }
  }
}
