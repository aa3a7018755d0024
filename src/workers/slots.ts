/**
 * A counting semaphore: at most `size` holders at once, the rest wait in arrival order.
 * PAdES jobs hold one while they have a document in memory, so a burst (or a restart resuming a
 * backlog) never loads every document at once.
 */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Whether `acquire` would be granted at once. */
  get free(): boolean {
    return this.used < this.size;
  }

  /** An aborted `signal` takes a waiter out of the line at once (its request has ended). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.used < this.size) this.used += 1;
    else {
      // The releaser hands its slot over.
      await new Promise<void>((resolve, reject) => {
        const granted = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const at = this.waiting.indexOf(granted);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', leave, { once: true });
        this.waiting.push(granted);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.used -= 1;
    };
  }
}
