// Bundles src/main.ts into dist/localsign.cjs (CONTRACT "bundle"), stamping the git commit.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync } from 'node:fs';
import { build } from 'esbuild';

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

const target = 'dist/localsign.cjs';
// Built beside and renamed into place: a test or a service reading the bundle while it is rebuilt
// sees the old file or the new one, never half of one.
const outfile = `dist/.localsign.${process.pid}.cjs`;
mkdirSync('dist', { recursive: true });
await build({
  entryPoints: ['src/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // node20: the code must run on the machine's Node 20 (and the SEA's Node 22). Without it esbuild
  // emits Uint8Array.fromBase64 for binary assets, which Node 20 lacks.
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  loader: { '.ttf': 'binary' },
  // koffi carries native binaries: it is loaded at run time from beside the bundle (chip/loader.ts).
  external: ['koffi'],
  define: {
    __LOCALSIGN_COMMIT__: JSON.stringify(process.env.LOCALSIGN_COMMIT || gitCommit()),
    __LOCALSIGN_BUNDLED__: 'true',
  },
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
renameSync(outfile, target);
console.log(`built ${target}`);
