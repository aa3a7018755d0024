import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:macos` only: the macOS executables and .pkg, built on Linux and read with tools we
 * did not write (llvm-14, bsdtar, 7zz, cpio, plistutil, xmllint). Kept out of `npm test` as the
 * Windows suite is: it needs the two macOS runtimes (90 MB from the npm registry) and postject's
 * 1 GB per injection, and the tools of `node build/test-deps.mjs install macos`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/macos/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // Two cores: the package test decompresses 240 MB while the executables are hashed.
    maxWorkers: 2,
  },
});
