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

function vendorTable() {
  if (table) return table;
  let sea = null;
  try {
    sea = require('node:sea');
  } catch {
    /* before Node 20.12: not a single executable */
  }
  if (sea && sea.isSea()) {
    const mod = { exports: {} };
    // Compiled as the launcher compiles a bundle, with the code cache the build made for this
    // text in a PDF worker of the executable's own Node after its warm-up (build/sea.mjs), when
    // the executable carries it and V8 takes it (the same Node version, a PDF worker's flags);
    // compiled as usual otherwise. Only builtins are required from the vendor bundle, which the
    // executable's require serves.
    const launcher = require('../launcher.cjs');
    let cachedData;
    try {
      cachedData = Buffer.from(sea.getAsset(CACHE));
    } catch {
      cachedData = undefined; // an executable built without it
    }
    launcher.compileText(launcher.sourceText(Buffer.from(sea.getAsset(ASSET))), ASSET, cachedData).runInThisContext()(mod.exports, require, mod, ASSET, '.');
    table = mod.exports;
  } else {
    const path = require('node:path').join(__dirname, ASSET);
    try {
      table = requireBeside(path);
    } catch (e) {
      throw new Error(`cannot load ${path}, which dist/localsign.cjs needs beside it for PDF work and the remote platform (${e && e.message})`);
    }
  }
  return table;
}

/**
 * The vendor bundle through the launcher beside it (build/launcher.cjs `run`: compiled with its code
 * cache, as the launcher compiles the bundles it starts); a plain require without the launcher.
 */
function requireBeside(path) {
  let launcher = null;
  try {
    launcher = require(require('node:path').join(__dirname, 'localsign.cjs'));
  } catch {
    /* no launcher beside this bundle */
  }
  return launcher && typeof launcher.run === 'function' ? launcher.run(ASSET, CACHE) : require(path);
}

/** The module a vendored import names, evaluated on its first use. */
module.exports = function vendor(name) {
  const load = vendorTable()[name];
  if (!load) throw new Error(`${ASSET} has no module ${name}: rebuild with npm run build`);
  return load();
};
