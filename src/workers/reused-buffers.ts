import { newBytes } from './large-bytes';

/**
 * The large buffers of a PDF worker process, kept from one task to the next.
 *
 * Why: the first write to fresh memory costs a page fault per 4 KiB page: about 15 µs a page, 40 ms
 * for 10 MiB, against under 1 ms to write the same 10 MiB again (measured on a 2-core machine with
 * a 10 MiB Buffer filled twice). A 10 MB document took three such buffers per request: the check's
 * reading of it, prepare's reading and prepare's output, and finish's reading of the prepared file.
 * Kept buffers fault once per worker instead.
 *
 * Safe because a worker runs one task at a time (serve-worker.ts), and a task's large answer is
 * written to its file (or serialized into the IPC message) before the task ends: nothing of a kept
 * buffer is read after its task. Only used where that holds (document-tasks.ts: a task posted
 * with a scratch folder).
 *
 * Bounded: a buffer over `keepAtMost` bytes is made fresh and not kept, and one that no task took
 * for a while is let go (`dropUnused`): a worker that read one large document does not hold it
 * while it goes on with small ones. The worker's retire limit (handles.ts) counts what it holds
 * beyond the kept buffers (serve-worker.ts `keptBytes`), so once they are let go a worker
 * still that large is replaced, and its memory returned.
 */
export class ReusedBuffers {
  private readonly kept: (Buffer | undefined)[] = [];
  /** When each slot was last taken (the clock given to `take`). */
  private readonly takenAt: number[] = [];
  private nextSlot = 0;

  constructor(private readonly keepAtMost: number) {}

  /** A task begins: its first `take` gets the first kept buffer again. */
  startTask(): void {
    this.nextSlot = 0;
  }

  /**
   * `size` bytes for this task, contents undefined: the task's n-th call gets the n-th kept
   * buffer, grown when too small (tasks of the same kind ask for the same sizes in the same order).
   */
  take(size: number, now = Date.now()): Uint8Array {
    const slot = this.nextSlot++;
    this.takenAt[slot] = now;
    if (size > this.keepAtMost) {
      // Not kept, and the slot's smaller buffer is let go: a worker's memory follows its documents down.
      this.kept[slot] = undefined;
      return newBytes(size);
    }
    let buffer = this.kept[slot];
    if (!buffer || buffer.length < size) {
      // Rounded up to a MiB: the prepared file that finish reads is a little longer than the
      // document the check and prepare read, and the next document may be a little longer too.
      buffer = Buffer.allocUnsafeSlow(Math.min(this.keepAtMost, Math.ceil(size / MiB) * MiB));
      this.kept[slot] = buffer;
    }
    return new Uint8Array(buffer.buffer, buffer.byteOffset, size);
  }

  /** Lets go of the buffers no task took in the last `idleMs`; true when it let go of any. */
  dropUnused(now: number, idleMs: number): boolean {
    let dropped = false;
    this.kept.forEach((buffer, slot) => {
      if (buffer && now - (this.takenAt[slot] ?? 0) >= idleMs) {
        this.kept[slot] = undefined;
        dropped = true;
      }
    });
    return dropped;
  }

  /** Bytes held between tasks. */
  heldBytes(): number {
    return this.kept.reduce((sum, b) => sum + (b?.length ?? 0), 0);
  }
}

const MiB = 1024 * 1024;
