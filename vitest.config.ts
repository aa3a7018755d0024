import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';

/** Mirrors esbuild's `binary` loader so `import font from '….ttf'` gives a Uint8Array in tests too. */
function binaryAssets(): Plugin {
  return {
    name: 'localsign-binary-assets',
    enforce: 'pre',
    load(id) {
      if (!id.endsWith('.ttf')) return null;
      const b64 = readFileSync(id).toString('base64');
      return `export default new Uint8Array(Buffer.from(${JSON.stringify(b64)}, 'base64'));`;
    },
  };
}

export default defineConfig({
  plugins: [binaryAssets()],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // Every tool the tests use checked first (one line and a stop when one is missing); the
    // machine's users, groups and packages compared after the run (issue 19).
    globalSetup: ['test/global-setup.ts'],
    // Each test file's temporary folders removed when it is over (helpers/temp-dir.ts).
    setupFiles: ['test/setup/temp-dirs.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests start real servers, SoftHSM2 tokens and child processes; two cores here.
    maxWorkers: 2,
  },
});
