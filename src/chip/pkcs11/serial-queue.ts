/**
 * Runs async tasks one after another. A PKCS#11 session has at most one active operation
 * (v2.40 §5.6), so concurrent requests must never interleave C_SignInit/C_Sign on it; a failed
 * task does not stop the ones queued behind it.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending += 1;
    const result = this.#tail.then(task).finally(() => {
      this.#pending -= 1;
    });
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }
}
