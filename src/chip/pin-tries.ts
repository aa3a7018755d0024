/**
 * Wrong `chip_pin` values, counted per application and per token, and slowed: after the n-th
 * wrong PIN in a row, the next try waits 2^(n-1) seconds (1, 2, 4, … up to 15 minutes), for that
 * application on that token and, counted over every application, for anyone on that token. A
 * PIN the token accepts ends the run (for that application and for the token), as the token's
 * own retry counter does (PKCS#11 v2.40 §5.6 C_Login).
 *
 * Why: a card locks after a few wrong tries (3 on most eID cards), and a token without a retry
 * counter (an HSM partition, SoftHSM2) answers 250 tries a second. One application sent 300 wrong
 * PINs in 1.2 s. A try that must wait is refused at once (429 with Retry-After before the 202, or
 * the request's ERROR when it was already queued), never held: a held try would keep the token's
 * queue from everyone else.
 *
 * The counts live in memory: a restart forgets them, the card's own counter does not, and the
 * token's flags are read before every try (pkcs11/pin-flags.ts).
 */
import { RateLimitedError } from '../domain/errors';

export interface PinTryPolicy {
  /** The wait after the first wrong PIN; it doubles with each one after. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A run of wrong PINs with no try for this long is forgotten. */
  forgetAfterMs: number;
}

export const PIN_TRY_POLICY: PinTryPolicy = { firstDelayMs: 1_000, maxDelayMs: 15 * 60_000, forgetAfterMs: 24 * 3_600_000 };

/** One token's counts, as a PKCS#11 chip consults them before each login with a `chip_pin`. */
export interface TokenPinTries {
  /** Throws RateLimitedError while `caller` (an application key) must wait before its next try. */
  check(caller: string): void;
  failed(caller: string): void;
  succeeded(caller: string): void;
}

interface Run {
  failures: number;
  /** When the last wrong PIN was refused (ms). */
  last: number;
}

export class PinTries {
  /** By token, then by application key; '' under a token is every application together. */
  private readonly runs = new Map<string, Map<string, Run>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly policy: PinTryPolicy = PIN_TRY_POLICY,
  ) {}

  forToken(token: string): TokenPinTries {
    return {
      check: (caller) => this.check(token, caller),
      failed: (caller) => this.failed(token, caller),
      succeeded: (caller) => this.succeeded(token, caller),
    };
  }

  /** Throws RateLimitedError (429, Retry-After) while `caller`, or anyone, must wait on `token`. */
  check(token: string, caller: string): void {
    const mine = this.waitMs(token, caller);
    const anyone = this.waitMs(token, '');
    if (mine <= 0 && anyone <= 0) return;
    const seconds = Math.ceil(Math.max(mine, anyone) / 1000);
    const why =
      mine >= anyone
        ? `the card refused this application's last chip_pin (${this.run(token, caller)!.failures} wrong in a row)`
        : `the card refused the last ${this.run(token, '')!.failures} chip_pin values sent to it (from any application)`;
    throw new RateLimitedError(
      `${why}; the next chip_pin for it is taken in ${seconds} s: wrong PINs are slowed so that they can neither lock the card nor be guessed. Ask the signatory for the right PIN before sending it again`,
      seconds,
      'chip_pin',
    );
  }

  failed(token: string, caller: string): void {
    const now = this.now();
    for (const who of new Set([caller, ''])) {
      const run = this.run(token, who);
      this.runsOf(token).set(who, { failures: (run?.failures ?? 0) + 1, last: now });
    }
  }

  succeeded(token: string, caller: string): void {
    const runs = this.runs.get(token);
    if (!runs) return;
    runs.delete(caller);
    runs.delete('');
    if (runs.size === 0) this.runs.delete(token);
  }

  /** How long `who` still waits on `token` (ms, ≤ 0: not at all). */
  private waitMs(token: string, who: string): number {
    const run = this.run(token, who);
    if (!run) return 0;
    const delay = Math.min(this.policy.firstDelayMs * 2 ** (run.failures - 1), this.policy.maxDelayMs);
    return run.last + delay - this.now();
  }

  /** The current run of `who` on `token`; a run left alone for a day is forgotten. */
  private run(token: string, who: string): Run | undefined {
    const runs = this.runs.get(token);
    const run = runs?.get(who);
    if (run && this.now() - run.last > this.policy.forgetAfterMs) {
      runs!.delete(who);
      if (runs!.size === 0) this.runs.delete(token);
      return undefined;
    }
    return run;
  }

  private runsOf(token: string): Map<string, Run> {
    let runs = this.runs.get(token);
    if (!runs) this.runs.set(token, (runs = new Map()));
    return runs;
  }
}
