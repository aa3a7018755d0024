/**
 * Issue 31: the counts behind the slowing of wrong `chip_pin` values (src/chip/pin-tries.ts), on a
 * clock the test moves. The real token, the spy's C_Login count and the 429s are in
 * test/integration/chip-api/chip-pin-tries.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PinTries } from '../../../src/chip/pin-tries';
import { RateLimitedError } from '../../../src/domain/errors';

function clocked() {
  const clock = { now: 1_000_000 };
  return { clock, tries: new PinTries(() => clock.now) };
}

/** The Retry-After of the refusal, or 0 when the try may be made. */
function waitOf(tries: PinTries, token: string, caller: string): number {
  try {
    tries.check(token, caller);
    return 0;
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ kind: 'rate_limited', type: 'chip_pin' });
    return (error as RateLimitedError).retryAfterSeconds;
  }
}

describe('PinTries', () => {
  it('doubles the wait with each wrong PIN in a row, up to 15 minutes', () => {
    const { clock, tries } = clocked();
    const waits: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      tries.failed('card', 'wrp_a');
      waits.push(waitOf(tries, 'card', 'wrp_a'));
      clock.now += waits.at(-1)! * 1000;
      expect(waitOf(tries, 'card', 'wrp_a')).toBe(0);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
  });

  it("counts per application and per token: another application waits for the card's count, another card does not", () => {
    const { clock, tries } = clocked();
    tries.failed('card', 'wrp_a');
    tries.failed('card', 'wrp_a');
    expect(waitOf(tries, 'card', 'wrp_a')).toBe(2);
    expect(waitOf(tries, 'card', 'wrp_b')).toBe(2);
    expect(waitOf(tries, 'other-card', 'wrp_a')).toBe(0);
    expect(() => tries.check('card', 'wrp_b')).toThrow(/^the card refused the last 2 chip_pin values sent to it \(from any application\); the next chip_pin for it is taken in 2 s/u);
    expect(() => tries.check('card', 'wrp_a')).toThrow(/^the card refused this application's last chip_pin \(2 wrong in a row\)/u);
    clock.now += 2_000;
    // wrp_b's wrong PIN: the card's run goes on (3: 4 s for anyone), wrp_b's starts (1).
    tries.failed('card', 'wrp_b');
    expect(waitOf(tries, 'card', 'wrp_c')).toBe(4);
    clock.now += 4_000;
    expect(waitOf(tries, 'card', 'wrp_b')).toBe(0);
  });

  it("a right PIN ends the card's run and that application's, not another application's", () => {
    const { clock, tries } = clocked();
    for (let i = 0; i < 3; i += 1) tries.failed('card', 'wrp_a');
    tries.failed('card', 'wrp_b');
    clock.now += 8_000;
    tries.succeeded('card', 'wrp_b');
    tries.failed('card', 'wrp_a');
    // wrp_a's own run is at 4 (8 s); the card's starts again at 1.
    expect(waitOf(tries, 'card', 'wrp_a')).toBe(8);
    expect(waitOf(tries, 'card', 'wrp_b')).toBe(1);
    clock.now += 8_000;
    tries.succeeded('card', 'wrp_a');
    tries.failed('card', 'wrp_a');
    expect(waitOf(tries, 'card', 'wrp_a')).toBe(1);
  });

  it('forgets a run left alone for a day', () => {
    const { clock, tries } = clocked();
    for (let i = 0; i < 11; i += 1) tries.failed('card', 'wrp_a');
    clock.now += 24 * 3_600_000 + 1;
    tries.failed('card', 'wrp_a');
    expect(waitOf(tries, 'card', 'wrp_a')).toBe(1);
  });
});
