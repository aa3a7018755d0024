#!/usr/bin/env node
// dist/localsign.cjs: starts the bundle beside it, dist/localsign-main.cjs, with V8's code cache
// dist/localsign-main.cache, which `npm run build` made for that exact text with this Node
// (build/bundle.mjs). Compiling the 1.2 MB bundle was the largest part of the service's start after
// Node's own (a CPU profile of `serve`); from the cache it is read, not compiled. A cache another
// Node or other flags made is refused by V8 itself, and the bundle is compiled as usual: never an
// error. The single executable does the same with its own cache (sea-config.json useCodeCache).
//
// Started with PDF_WORKER_ARG it is a PDF worker process instead (src/workers/entry.ts): the PDF
// worker's bundle with its own cache, made by the build after a warm-up run
// (build/pdf-worker-cache.cjs), so it holds the compiled code of a small PDF's path too.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const vm = require('node:vm');

const MAIN = 'localsign-main.cjs';
const CACHE = 'localsign-main.cache';
/** The PDF worker's bundle and its cache; the argument is src/workers/entry.ts PDF_WORKER_ARG. */
const PDF_WORKER = 'localsign-pdf-worker.cjs';
const PDF_WORKER_CACHE = 'localsign-pdf-worker.cache';
const PDF_WORKER_ARG = '__pdf-worker';

/** The bundle as Node wraps a CommonJS module, its first line (the shebang) kept as a comment: the cache is for this text. */
function wrapped(source) {
  return `(function (exports, require, module, __filename, __dirname) {${source.startsWith('#!') ? `//${source.slice(2)}` : source}\n})`;
}

/**
 * A bundle's text. The build writes each one in ASCII (build/ascii-source.mjs), which reads as
 * Latin-1 at the speed of a copy: decoding the vendor bundle's 4.7 MB as UTF-8 took 15 ms in a
 * fresh process, against 5 ms (on a 2-core machine), and every PDF worker reads it as it starts.
 * Anything else is read as UTF-8, as before.
 */
function sourceText(bytes) {
  const { isAscii } = require('node:buffer');
  return typeof isAscii === 'function' && isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * A bundle's text compiled as Node wraps a CommonJS module, with `cachedData` when given: a cache
 * made for the same text, by the same V8 under the same flags, is taken; any other is refused by
 * V8 (`cachedDataRejected`) and the text compiled as usual.
 */
function compileText(text, filename, cachedData) {
  return new vm.Script(wrapped(text), {
    filename,
    cachedData,
    // import() inside the bundle resolves as in any CommonJS module (Node 20.12+; older: none is needed).
    importModuleDynamically: vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}

/** The bundle at `file` compiled, with `cachedData` when given. */
function compile(file, cachedData) {
  return compileText(sourceText(readFileSync(file)), file, cachedData);
}

/** What `read(name)` gives, or undefined where it throws (no such file or asset). */
function optional(read, name) {
  try {
    return read(name);
  } catch {
    return undefined;
  }
}

/** Runs a compiled bundle as Node runs a CommonJS module, with `req` as its require; its exports. */
function runScript(script, file, dir, req) {
  const mod = { exports: {}, id: file, filename: file, loaded: false, children: [], paths: [] };
  script.runInThisContext()(mod.exports, req, mod, file, dir);
  return mod.exports;
}

/**
 * Runs the bundle `name` beside this file as Node runs a CommonJS module, compiled with the cache
 * `cacheName` when there is one, and gives its exports: the bundles this launcher starts, and the
 * vendor bundle they load (build/vendor/runtime.cjs).
 */
function run(name, cacheName) {
  const file = join(__dirname, name);
  const cachedData = optional(readFileSync, join(__dirname, cacheName));
  return runScript(compile(file, cachedData), file, __dirname, createRequire(file));
}

/**
 * The same for a bundle embedded in the single executable as the SEA asset `name`, with the cache
 * asset `cacheName` when it carries one (build/sea.mjs made it with the executable's Node): its
 * exports, or null outside a single executable or without the asset. Its require is the
 * executable's, which serves the builtins, all a bundle requires. The executable's PDF workers run
 * theirs this way (src/workers/embedded-pdf-worker.ts), and the vendor bundle is loaded so
 * (build/vendor/runtime.cjs).
 */
function runAsset(name, cacheName) {
  const sea = optional(require, 'node:sea'); // missing before Node 20.12: not a single executable
  if (!sea || !sea.isSea()) return null;
  const bytes = optional(sea.getAsset, name);
  if (bytes === undefined) return null;
  const cache = optional(sea.getAsset, cacheName);
  return runScript(compileText(sourceText(Buffer.from(bytes)), name, cache === undefined ? undefined : Buffer.from(cache)), name, '.', require);
}

function start() {
  // A PDF worker has the IPC channel the service opened (as src/main.ts asks); without one the
  // argument is a command like any other, and the CLI answers it.
  if (process.argv[2] === PDF_WORKER_ARG && typeof process.send === 'function' && existsSync(join(__dirname, PDF_WORKER))) run(PDF_WORKER, PDF_WORKER_CACHE);
  // Without its own bundle beside it, the service bundle is the PDF worker too (src/main.ts).
  else run(MAIN, CACHE);
}

module.exports = { MAIN, CACHE, PDF_WORKER, PDF_WORKER_CACHE, PDF_WORKER_ARG, compile, run, runAsset };
if (require.main === module) start();
