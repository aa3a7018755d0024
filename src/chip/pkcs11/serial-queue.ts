/**
 * Runs async tasks one after another. A PKCS#11 session has at most one active operation
 * (v2.40 §5.6), so concurrent requests must never interleave C_SignInit/C_Sign on it; a failed
 * task does not stop the ones queued behind it.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /**
   * Queues `task`. An aborted `signal` takes a task that has not started out of the queue at once
   * (a request that timed out behind a PIN pad nobody types on ends now, not when the
   * token is free, and its task never runs). A task that has started decides for itself: it holds
   * the signal, and may be past the point where the token signs.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#pending += 1;
    let started = false;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.#pending -= 1;
    };
    const result = this.#tail.then(() => {
      if (signal?.aborted) throw signal.reason;
      started = true;
      return task();
    });
    const settled = result.finally(leave);
    this.#tail = settled.catch(() => undefined);
    if (!signal) return settled;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (started) return;
        leave();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      settled.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }
}
