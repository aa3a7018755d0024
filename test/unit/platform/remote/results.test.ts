import { describe, expect, it } from 'vitest';
import { PairingRevokedError } from '../../../../src/platform/remote/client';
import type { PlatformResult } from '../../../../src/platform/remote/wire';
import { TransportError } from '../../../../src/net/transport-error';
import { PlatformResultHub } from '../../../../src/platform/remote/results';

const done: PlatformResult = { status: 'DONE', signature: Uint8Array.of(1) };
const fast = () => 0; // jitter at its lowest: polls after 250, 500, 1000 ms

describe('PlatformResultHub: push or poll, whichever comes first', () => {
  it('a push that arrived before the job waits is used at once; a second one is a duplicate', async () => {
    const hub = new PlatformResultHub();
    expect(hub.deliver('req_1', { status: 'ERROR', error: 'declined' })).toBe('accepted');
    expect(hub.deliver('req_1', done)).toBe('duplicate');
    let polls = 0;
    const result = await hub.wait('req_1', { signal: new AbortController().signal, poll: async () => (polls++, { status: 'PENDING' }), resubmit: async () => {}, random: fast });
    expect(result).toEqual({ status: 'ERROR', error: 'declined' });
    expect(polls).toBe(0);
  });

  it('a push during the wait ends it; polling stops', async () => {
    const hub = new PlatformResultHub();
    let polls = 0;
    const waiting = hub.wait('req_2', { signal: new AbortController().signal, poll: async () => (polls++, { status: 'PENDING' }), resubmit: async () => {}, random: fast });
    await new Promise((r) => setTimeout(r, 400));
    expect(hub.deliver('req_2', done)).toBe('accepted');
    expect(await waiting).toBe(done);
    const seen = polls;
    await new Promise((r) => setTimeout(r, 700));
    expect(polls).toBe(seen);
    expect(seen).toBeGreaterThanOrEqual(1);
  });

  it('polls until the result is final, retries transport failures, resubmits what the platform lost', async () => {
    const hub = new PlatformResultHub();
    const answers: (PlatformResult | 'unknown' | Error)[] = ['unknown', new TransportError('the platform answered HTTP 503', { retryable: true }), { status: 'PENDING' }, done];
    let resubmits = 0;
    const result = await hub.wait('req_3', {
      signal: new AbortController().signal,
      poll: async () => {
        const next = answers.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      resubmit: async () => void (resubmits += 1),
      random: fast,
    });
    expect(result).toBe(done);
    expect(resubmits).toBe(1);
    expect(answers).toEqual([]);
  });

  it('a revoked pairing or the request timeout ends the wait with that error', async () => {
    const hub = new PlatformResultHub();
    await expect(hub.wait('req_4', { signal: new AbortController().signal, poll: async () => { throw new PairingRevokedError(); }, resubmit: async () => {}, random: fast })).rejects.toBeInstanceOf(PairingRevokedError);
    const timeout = new AbortController();
    const waiting = hub.wait('req_5', { signal: timeout.signal, poll: async () => ({ status: 'PENDING' }), resubmit: async () => {}, random: fast });
    timeout.abort(new Error('signing did not complete within 1 s'));
    await expect(waiting).rejects.toThrow('signing did not complete within 1 s');
    // Nobody waits any more: a late push is parked, and forget() drops it.
    expect(hub.deliver('req_5', done)).toBe('accepted');
    hub.forget('req_5');
    expect(hub.deliver('req_5', done)).toBe('accepted');
  });
});
