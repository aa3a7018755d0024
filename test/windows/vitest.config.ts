import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:windows` only: the Windows executable under wine (issue 7 §1). Kept out of the
 * main config's include, so `npm test` does not run it; `.ci/run` runs it after `npm test`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/windows/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One wine prefix, one service at a time: the steps build on each other.
    fileParallelism: false,
  },
});
