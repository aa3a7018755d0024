// Makes the PDF worker's code caches (dist/localsign-pdf-worker.cache, dist/localsign-vendor.cache)
// after a warm-up: build/bundle.mjs forks this file as a PDF worker (an IPC channel, the V8 flags
// PDF workers start with), sends it the worker's own warm task (src/workers/warm-up.ts), and ends
// it. The caches then hold the code V8 compiled for a small PDF's path, not only the bundles' top
// level: a PDF worker started with them was 50 ms faster to its first answer (build/launcher.cjs).
// Only for the build; nothing here is in a bundle.
'use strict';
const { renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const vm = require('node:vm');

const dir = process.argv[2];
const launcher = require(join(dir, 'localsign.cjs'));
const CACHES = { [join(dir, launcher.PDF_WORKER)]: join(dir, launcher.PDF_WORKER_CACHE), [join(dir, 'localsign-vendor.cjs')]: join(dir, 'localsign-vendor.cache') };

// The scripts the launcher and the vendor loader (build/vendor/runtime.cjs) compile for the two bundles.
const compiled = new Map();
const Script = vm.Script;
vm.Script = function RecordedScript(code, options) {
  const script = new Script(code, options);
  if (options && CACHES[options.filename]) compiled.set(options.filename, script);
  return script;
};

process.on('exit', () => {
  // V8 stamps a cache with the flags of the moment: those a worker starts with, since the warm-up's
  // full collection sets its flag back (src/config/full-collection.ts).
  for (const [file, cache] of Object.entries(CACHES)) {
    const script = compiled.get(file);
    if (!script) {
      process.exitCode = 1;
      process.stderr.write(`${file} was not loaded by the warm-up: no cache made for it\n`);
      continue;
    }
    writeFileSync(`${cache}.${process.pid}`, script.createCachedData());
    renameSync(`${cache}.${process.pid}`, cache);
  }
});

launcher.run(launcher.PDF_WORKER, launcher.PDF_WORKER_CACHE);
