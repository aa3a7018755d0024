// Bundles src/main.ts into dist/localsign-main.cjs, started by dist/localsign.cjs (CONTRACT
// "bundle": `node dist/localsign.cjs <command>`) with V8's code cache of it, stamping the git commit.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { asciiSource } from './ascii-source.mjs';
import { fontkitLazyBrotli } from './vendor/fontkit-lazy-brotli.mjs';
import { honoWithoutHttp2 } from './vendor/hono-without-http2.mjs';
import { makePdfWorkerCaches, PDF_WORKER_CACHES } from './pdf-worker-caches.mjs';

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Three bundles: the service (src/main.ts), the signing worker thread (src/sign-worker.ts), which
 * holds only the signing code so a worker starts fast and small, and the PDF worker thread
 * (src/pdf-worker.ts), where every document from a stranger is read under a heap limit and a
 * deadline; it reads pdf-lib and the font from the vendor bundle, as the service does. Each is
 * built beside its target and renamed into place: a test or a service reading a bundle while it
 * is rebuilt sees the old file or the new one, never half of one.
 */
const out = process.env.LOCALSIGN_OUT_DIR || 'dist';
const targets = [
  { entry: 'src/main.ts', target: `${out}/localsign-main.cjs`, vendor: true, launched: true },
  { entry: 'src/sign-worker.ts', target: `${out}/localsign-worker.cjs` },
  { entry: 'src/pdf-worker.ts', target: `${out}/localsign-pdf-worker.cjs`, vendor: true },
];

/**
 * The third bundle, dist/localsign-vendor.cjs: pdf-lib, fontkit, undici and the stamp font, 4.8 of
 * the service bundle's 5.8 MB. Nothing on the way to the first /health uses them, yet Node read
 * and pre-parsed them at every start (47 ms of 175, measured on a 2-core machine), against a
 * start-up budget of 150 ms (docs/benchmarks.md). The service bundle imports them through
 * build/vendor/runtime.cjs, which reads this bundle on the first use of one.
 */
const VENDORED = /^(pdf-lib|@pdf-lib\/fontkit|@pdf-lib\/standard-fonts|undici)$/;
const VENDOR_RUNTIME = resolve('build/vendor/runtime.cjs');
const requireFrom = createRequire(import.meta.url);
function vendorPlugin(used) {
  return {
    name: 'vendor',
    setup(b) {
      b.onResolve({ filter: VENDORED }, (a) => ({ path: a.path, namespace: 'vendor' }));
      // The stamp font comes from the npm package dejavu-fonts-ttf (never a copy in this repository).
      b.onResolve({ filter: /\.ttf$/ }, (a) => ({ path: relative(process.cwd(), requireFrom.resolve(a.path, { paths: [a.resolveDir] })), namespace: 'vendor' }));
      b.onLoad({ filter: /.*/, namespace: 'vendor' }, (a) => {
        used.add(a.path);
        const load = `require(${JSON.stringify(VENDOR_RUNTIME)})(${JSON.stringify(a.path)})`;
        // A font is a Uint8Array: as a CommonJS export, esbuild's default-import interop (__toESM)
        // copied a getter for each of its 760,000 indices (1.5 s and hundreds of MB on the first
        // stamp, measured on a 2-core machine). As an ES module's default export it is passed by
        // reference.
        const contents = a.path.endsWith('.ttf') ? `export default ${load};` : `module.exports = ${load};`;
        return { contents, loader: 'js', resolveDir: process.cwd() };
      });
    },
  };
}
const vendored = new Set();
const commit = process.env.LOCALSIGN_COMMIT || gitCommit();
/**
 * The release bundle drops every `TEST_FAULT:` block (the LOCALSIGN_TEST_FAULT switch, with which
 * the service SIGKILLs itself to prove nothing is lost on a crash). `npm test` builds with
 * LOCALSIGN_TEST_BUILD=1 and keeps them. LOCALSIGN_OUT_DIR builds elsewhere than dist/ (the test
 * that checks the release bundle).
 */
const testBuild = /^(1|true|yes)$/i.test(process.env.LOCALSIGN_TEST_BUILD ?? '');
const dropLabels = testBuild ? [] : ['TEST_FAULT'];
const define = {
  __LOCALSIGN_COMMIT__: JSON.stringify(commit),
  __LOCALSIGN_BUNDLED__: 'true',
  // `--version` says a test build apart: `npm test` leaves one in dist/, and `npm install -g .`
  // links the checkout, so the global command may be it.
  __LOCALSIGN_TEST_BUILD__: String(testBuild),
};
mkdirSync(out, { recursive: true });
// V8 checks a code cache against its script's length only: a cache of the last build must never sit
// beside a new bundle. The PDF worker's are made again below, after both bundles.
for (const cache of PDF_WORKER_CACHES) rmSync(`${out}/${cache}`, { force: true });
/** Built beside its target and renamed into place (see below). */
const besideTarget = (target) => target.replace(/[^/]+$/, (name) => `.${name}.${process.pid}`);
for (const { entry, target, vendor, launched } of targets) {
  const outfile = besideTarget(target);
  await build({
    entryPoints: [entry],
    plugins: [...(vendor ? [vendorPlugin(vendored)] : []), honoWithoutHttp2],
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
    define,
    dropLabels,
    legalComments: 'none',
    logLevel: 'warning',
  });
  writeFileSync(outfile, asciiSource(readFileSync(outfile, 'utf8'), target));
  chmodSync(outfile, 0o755);
  renameSync(outfile, target);
  console.log(`built ${target}`);
  if (launched) writeLauncher(target);
}

/**
 * dist/localsign.cjs, the launcher (build/launcher.cjs), and the code cache it starts the bundle
 * with: compiled here exactly as the launcher compiles it, by this Node (the one `npm start` and
 * `npm test` run it with). The cache first, the launcher last: a launcher never meets the cache of
 * an older bundle that it would have to refuse.
 */
function writeLauncher(main) {
  const launcher = requireFrom(resolve('build/launcher.cjs'));
  const dir = main.replace(/[^/]+$/, '');
  const cache = `${dir}${launcher.CACHE}`;
  writeFileSync(besideTarget(cache), launcher.compile(resolve(main)).createCachedData());
  renameSync(besideTarget(cache), cache);
  const entry = `${dir}localsign.cjs`;
  writeFileSync(besideTarget(entry), readFileSync('build/launcher.cjs'));
  chmodSync(besideTarget(entry), 0o755);
  renameSync(besideTarget(entry), entry);
  console.log(`built ${entry} (starts ${main} with its code cache, ${cache})`);
}
{
  // A table of loaders, so only what is used is evaluated (undici only with a remote platform).
  const table = [...vendored].sort().map((name) => `  ${JSON.stringify(name)}: () => require(${JSON.stringify(name.endsWith('.ttf') ? `./${name}` : name)}),`);
  const target = `${out}/localsign-vendor.cjs`;
  const outfile = besideTarget(target);
  await build({
    stdin: { contents: `module.exports = {\n${table.join('\n')}\n};\n`, resolveDir: process.cwd(), loader: 'js' },
    alias: { pako: resolve('build/vendor/pako-zlib.cjs') },
    plugins: [fontkitLazyBrotli],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    loader: { '.ttf': 'binary' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  writeFileSync(outfile, asciiSource(readFileSync(outfile, 'utf8'), target));
  renameSync(outfile, target);
  console.log(`built ${target} (${[...vendored].sort().join(', ')})`);
}
console.log(`built ${(await makePdfWorkerCaches(out)).join(', ')} (after a warm-up)`);

// What the bundle was stamped with, for the executables' version resource and the installers' names.
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
writeFileSync(`${out}/build-info.json`, JSON.stringify({ version, commit, build: testBuild ? 'test' : 'release' }) + '\n');

// dist/openapi.json: the same document GET /openapi.json serves, from the same route table
// (src/api/operations.ts), for tools that read it without a running service.
const { outputFiles } = await build({
  entryPoints: ['src/api/openapi.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  define,
  logLevel: 'warning',
});
const mod = { exports: {} };
new Function('module', 'exports', 'require', outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
writeFileSync(`${out}/openapi.json`, JSON.stringify(mod.exports.buildOpenApiDocument(), null, 2) + '\n');
console.log(`built ${out}/openapi.json`);

// dist/localsign-client-<version>.tgz: the TypeScript client packed for `npm install`;
// skipped when the client has not changed since the last one.
const { packClient } = await import('./client-pack.mjs');
console.log(`built ${relative(process.cwd(), packClient(out))}`);
