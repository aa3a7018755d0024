import { isAscii } from 'node:buffer';
import vm from 'node:vm';

/**
 * The single executable's PDF worker: the PDF worker's own bundle (src/pdf-worker.ts), embedded as
 * a SEA asset, compiled with the code cache the build made for it in a PDF worker of the
 * executable's Node after its warm-up (build/sea.mjs), as the bundle's launcher starts it from
 * beside itself (build/launcher.cjs). The executable itself is the service bundle, whose copy of
 * the engine has no cache: compiling it at each worker's start was most of what kept the
 * executable's PDF workers slower than the bundle's.
 */
const BUNDLE = 'localsign-pdf-worker.cjs';
const CACHE = 'localsign-pdf-worker.cache';

interface SeaAssets {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

function seaAssets(): SeaAssets | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sea = require('node:sea') as SeaAssets;
    return sea.isSea() ? sea : null;
  } catch {
    return null; // node:sea is missing before Node 20.12: not a single executable
  }
}

/**
 * The text V8 compiles, exactly as build/launcher.cjs wraps a bundle as Node wraps a CommonJS
 * module, its shebang line kept as a comment: a code cache is for one text (the executable's test
 * holds the two to each other: V8 takes the cache).
 */
function wrapped(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source.startsWith('#!') ? `//${source.slice(2)}` : source}\n})`;
}

/**
 * Runs the embedded PDF worker bundle (it serves the tasks itself) and says so; false outside a
 * single executable, or in one built without the bundle: the caller serves with its own copy.
 */
export function runEmbeddedPdfWorker(): boolean {
  const sea = seaAssets();
  if (!sea) return false;
  let bytes: Buffer;
  try {
    bytes = Buffer.from(sea.getAsset(BUNDLE));
  } catch {
    return false;
  }
  let cachedData: Buffer | undefined;
  try {
    cachedData = Buffer.from(sea.getAsset(CACHE));
  } catch {
    cachedData = undefined;
  }
  // ASCII, as every bundle (build/ascii-source.mjs): read as Latin-1, a copy, not decoded.
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const script = new vm.Script(wrapped(text), { filename: BUNDLE, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const mod = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(mod.exports, require, mod, BUNDLE, '.');
  return true;
}
