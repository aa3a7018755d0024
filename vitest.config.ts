import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests start real servers, SoftHSM2 tokens and child processes; two cores here.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
