// Bundled into dist/localsign.cjs in place of the large third-party packages (pdf-lib, fontkit,
// undici, the stamp font). They live in dist/localsign-vendor.cjs, read on first use: the service
// answers /health without parsing them (start-up ≤ 150 ms, docs/benchmarks.md). Beside the bundle as a
// file, or embedded in the single executable as a SEA asset, like the worker bundle.
//
// Beside the bundle it is compiled with V8's code cache localsign-vendor.cache when there is one:
// the build made it in a PDF worker after its warm-up (build/pdf-worker-cache.cjs), under the V8
// flags PDF workers start with. Any other process (or a PDF worker with another heap limit) has
// other flags, and V8 refuses the cache: the bundle is then compiled as usual, never an error (the
// service process reads the cache for nothing then, once, when it first needs undici). The single
// executable carries a cache of its own Node's making the same way (build/sea.mjs).
'use strict';
const ASSET = 'localsign-vendor.cjs';
const CACHE = 'localsign-vendor.cache';
let table = null;

const launcher = require('../launcher.cjs');

function vendorTable() {
  if (table) return table;
  // In the single executable, the embedded bundle; beside the service bundle, the file. Either is
  // compiled with its code cache when V8 takes it (build/launcher.cjs runAsset and run; the
  // launcher is bundled with this file).
  table = launcher.runAsset(ASSET, CACHE);
  if (!table) {
    const path = require('node:path').join(__dirname, ASSET);
    try {
      table = launcher.run(ASSET, CACHE);
    } catch (e) {
      throw new Error(`cannot load ${path}, which dist/localsign.cjs needs beside it for PDF work and the remote platform (${e && e.message})`);
    }
  }
  return table;
}

/** The module a vendored import names, evaluated on its first use. */
module.exports = function vendor(name) {
  const load = vendorTable()[name];
  if (!load) throw new Error(`${ASSET} has no module ${name}: rebuild with npm run build`);
  return load();
};
