/**
 * The built-in kinds and engines as a job's dependencies (signing/job-types.ts JobDeps `kinds`,
 * `engines`, `runTask`), for tests that run jobs without an AppContext: the same tables the
 * context makes (context.ts), with the chip and platform each test gives.
 */
import { PlatformResultHub } from '../../src/platform/remote/results';
import { BUILT_IN_ENGINES, EngineTable, type EngineDeps } from '../../src/signing/engines';
import type { JobDeps } from '../../src/signing/job-types';
import { BUILT_IN_KINDS, KindTable } from '../../src/signing/kinds';
import { runSignTask } from '../../src/signing/sign-tasks';

export function builtInSigning(o: Partial<EngineDeps> = {}): Pick<JobDeps, 'kinds' | 'engines' | 'runTask'> {
  const runTask = o.runTask ?? (async (task) => runSignTask(task));
  const kinds = new KindTable(BUILT_IN_KINDS);
  const engines = new EngineTable(BUILT_IN_ENGINES, {
    runTask,
    getChip: o.getChip ?? (async () => Promise.reject(new Error('no chip in this test'))),
    platform: o.platform ?? { platform: () => null, hub: new PlatformResultHub() },
  });
  return { kinds: (name) => kinds.require(name), engines: (name) => engines.engine(name), runTask };
}
