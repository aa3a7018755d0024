import { describe, expect, it } from 'vitest';
import { runSignTask } from '../../../src/signing/sign-tasks';
import { runDocumentTask } from '../../../src/workers/document-tasks';

/** What a weakly held object looks like after `collect` ran: gone only if it really collected. */
async function collectedBy(collect: () => unknown): Promise<boolean> {
  let target: object | null = { big: new Array(1000).fill(0) };
  const ref = new WeakRef(target);
  target = null;
  // A WeakRef's target is kept to the end of the job that made it (ECMA-262 ClearKeptObjects).
  await new Promise((resolve) => setImmediate(resolve));
  await collect();
  return ref.deref() === undefined;
}

/** The task WorkerPool.tidy posts to each idle worker once the service collected after a burst. */
describe("the workers' collect task", () => {
  it('a signing thread runs a full collection', async () => {
    expect(await collectedBy(() => expect(runSignTask({ op: 'collect' })).toBe(0))).toBe(true);
  });

  it('a PDF worker runs a full collection', async () => {
    expect(await collectedBy(async () => expect(await runDocumentTask({ op: 'collect', scratch: null })).toBeNull())).toBe(true);
  });
});
