// A TypeScript module for the build scripts, which are plain JavaScript run by Node 20 (no type
// stripping): esbuild bundles it into .cache/build-ts/ and it is imported from there. The
// macOS writers (build/macos/) and the launchd plist's renderer (src/install/) are TypeScript so
// that tsc checks them and the tests import the same source.
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export async function importTs(entry) {
  const dir = join('.cache', 'build-ts');
  mkdirSync(dir, { recursive: true });
  const out = resolve(dir, `${basename(entry, '.ts')}-${process.pid}.mjs`);
  await build({ entryPoints: [entry], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  try {
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(out, { force: true });
  }
}
