/**
 * The ONE place that finds and loads native code: koffi itself and the vendor's PKCS#11 module.
 * Nothing else in the service imports `koffi` at run time (only its types), so `--help` and every
 * command that does not touch a chip never load a native addon.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type * as KoffiModule from 'koffi';
import { ChipError } from '../errors/errors';

export type Koffi = typeof KoffiModule;
export type KoffiLibrary = KoffiModule.LibraryHandle;
export type KoffiFunction = ReturnType<KoffiLibrary['func']>;
export type KoffiType = KoffiModule.TypeObject;

export interface LoadedPkcs11Module {
  koffi: Koffi;
  /** Absolute path the module was loaded from. */
  path: string;
  library: KoffiLibrary;
  /** `CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR)`, PKCS#11 v2.40 §5.2: the only export we use. */
  getFunctionList: KoffiFunction;
}

let cachedKoffi: Koffi | undefined;

/**
 * Places koffi may live, tried in order. A plain `require('koffi')` is not enough:
 * - in the esbuild bundle (`dist/localsign.cjs`) koffi is external and sits in the node_modules
 *   next to the bundle, found from the running script (`process.argv[1]`);
 * - in a Node single executable `require()` only loads built-ins (nodejs/node
 *   doc/api/single-executable-applications.md), so we build a full require with
 *   `createRequire(process.execPath)` that finds `<dir of executable>/node_modules/koffi`, or the
 *   flat layout `<dir of executable>/koffi/` an installer may ship;
 * - from source (vitest, tsc output) `import.meta.url` resolves the project's node_modules.
 *   esbuild's CJS output turns `import.meta` into `{}`, so `url` is then simply undefined.
 * koffi then finds its prebuilt binary package (`@koromix/koffi-<os>-<arch>`) by its own require.
 */
function koffiCandidates(): { from: string; specifier: string }[] {
  const list: { from: string; specifier: string }[] = [];
  const moduleUrl: string | undefined = (import.meta as { url?: string }).url;
  if (moduleUrl) list.push({ from: moduleUrl, specifier: 'koffi' });
  if (process.argv[1]) list.push({ from: resolve(process.argv[1]), specifier: 'koffi' });
  list.push({ from: process.execPath, specifier: 'koffi' });
  list.push({ from: process.execPath, specifier: join(dirname(process.execPath), 'koffi') });
  return list;
}

/** Resolves and loads koffi once per process; throws ChipError listing where it looked. */
export function loadKoffi(): Koffi {
  if (cachedKoffi) return cachedKoffi;
  const tried: string[] = [];
  for (const { from, specifier } of koffiCandidates()) {
    try {
      const required = createRequire(from)(specifier) as Koffi & { default?: Koffi };
      cachedKoffi = typeof required.load === 'function' ? required : (required.default as Koffi);
      return cachedKoffi;
    } catch (error) {
      tried.push(`${specifier} from ${from} (${firstLine(error)})`);
    }
  }
  throw new ChipError(`cannot load koffi, the native bridge to PKCS#11 modules; tried: ${tried.join('; ')}`);
}

/**
 * Loads a PKCS#11 module (a shared library) and finds C_GetFunctionList. Each failure is a
 * ChipError that names the path and the problem an operator can fix.
 */
export function loadPkcs11Module(path: string): LoadedPkcs11Module {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new ChipError(`PKCS#11 module not found: ${absolute}`);
  if (!statSync(absolute).isFile()) {
    throw new ChipError(`cannot load PKCS#11 module ${absolute}: not a file; is it built for ${process.arch}?`);
  }
  const koffi = loadKoffi();
  let library: KoffiLibrary;
  try {
    library = koffi.load(absolute);
  } catch (error) {
    // dlopen's own reason ("file too short", "wrong ELF class: ELFCLASS32", "invalid ELF header")
    // says whether it is not a library at all or one built for another architecture.
    const reason = firstLine(error).replace(/^Failed to load shared library:\s*/i, '');
    throw new ChipError(`cannot load PKCS#11 module ${absolute}: ${reason}; is it built for ${process.arch}?`, {
      cause: error,
    });
  }
  let getFunctionList: KoffiFunction;
  try {
    getFunctionList = library.func('C_GetFunctionList', 'unsigned long', ['void *']);
  } catch (error) {
    library.unload();
    throw new ChipError(`PKCS#11 module ${absolute} has no C_GetFunctionList; is it a PKCS#11 library?`, {
      cause: error,
    });
  }
  return { koffi, path: absolute, library, getFunctionList };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
