import type { MiddlewareHandler } from 'hono';
import { BusyError } from '../../domain/errors';
import type { ApiEnv } from '../types';

/**
 * Request bodies held in memory at once, across every caller (serve --max-body-memory). Each body
 * read into memory takes its bytes as it is read (its declared length before the first byte, or
 * chunk by chunk without one) and gives them back when its request is answered. Beyond the budget
 * the request is answered 503 with Retry-After before (or while) its body is read, so concurrent
 * uploads cannot take the service past its memory (four 250 MB verify uploads got it OOM-killed in
 * the 2 GiB of its systemd unit), and other callers' requests go on. A body that is alone may be
 * as large as --max-body allows: the budget never refuses the only one.
 */
export class BodyMemory {
  private held = 0;

  constructor(readonly limit: number) {}

  /** A share of the budget for one body: `add` takes more of it (or throws), `release` gives it all back. */
  share(): BodyShare {
    let mine = 0;
    return {
      add: (bytes: number) => {
        if (this.held + bytes > this.limit && this.held - mine > 0) {
          throw new BusyError(`the service holds ${mb(this.held)} MiB of other request bodies and the budget is ${mb(this.limit)} MiB (serve --max-body-memory); send it again in a moment, or send a large PDF as the raw application/pdf body, which goes to disk`, RETRY_AFTER_SECONDS);
        }
        this.held += bytes;
        mine += bytes;
      },
      release: () => {
        this.held -= mine;
        mine = 0;
      },
    };
  }

  /** Bytes held now. */
  get inUse(): number {
    return this.held;
  }
}

export interface BodyShare {
  add(bytes: number): void;
  release(): void;
}

/** A large upload takes seconds; sooner would only be refused again. */
const RETRY_AFTER_SECONDS = 2;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Gives every request a share of the budget (read-body.ts takes from it) and returns it once answered. */
export function bodyMemory(budget: BodyMemory): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const share = budget.share();
    c.set('bodyShare', share);
    try {
      await next();
    } finally {
      share.release();
    }
  };
}
