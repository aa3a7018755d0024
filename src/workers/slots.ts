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

  async acquire(): Promise<() => void> {
    if (this.used < this.size) this.used += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // the releaser hands its slot over
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
