/**
 * Outside test data: files from other projects' public test suites (NIST PKITS, esig/dss,
 * pyHanko, Apple's plist DTD) are never committed here. They live in `../shared/vectors/` beside
 * the clone, which every developer machine and CI have; its README names each file's repository,
 * commit and licence. This is the one place that finds that folder.
 *
 * A clone without it still passes `npm test`: each test that needs a folder asks `outsideVectors`
 * and is skipped with `NO_OUTSIDE_VECTORS` as its reason; `test/global-setup.ts` prints one line
 * naming those test files. `.ci/run` refuses to start without the folder, so CI never skips them.
 * `LOCALSIGN_TEST_VECTORS` points elsewhere (a test sets it to a missing folder to see the skip).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The folders of `../shared/vectors` the tests read (its README lists them). */
export type OutsideFolder = 'external' | 'itext' | 'pkits' | 'pkits-all' | 'plist';

const REPO = resolve(__dirname, '../..');

/** Where the outside data is looked for: `LOCALSIGN_TEST_VECTORS`, else `../shared/vectors` beside the clone. */
export const OUTSIDE_VECTORS_DIR = process.env.LOCALSIGN_TEST_VECTORS
  ? resolve(process.env.LOCALSIGN_TEST_VECTORS)
  : resolve(REPO, '..', 'shared', 'vectors');

export const NO_OUTSIDE_VECTORS = `outside test data not found at ${OUTSIDE_VECTORS_DIR} (../shared/vectors beside the clone)`;

/**
 * The folder `name` of the outside data, or null when this machine has none (the caller skips).
 * `describe.skipIf(!dir)` keeps the skip visible in vitest's report.
 */
export function outsideVectors(name: OutsideFolder): string | null {
  const dir = join(OUTSIDE_VECTORS_DIR, name);
  return existsSync(join(dir, 'README.md')) ? dir : null;
}
