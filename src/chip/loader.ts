/**
 * The ONE place that finds and loads native code: koffi itself and the vendor's PKCS#11 module.
 * Nothing else in the service imports `koffi` at run time (only its types), so `--help` and every
 * command that does not touch a chip never load a native addon.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type * as KoffiModule from 'koffi';
import { ChipError } from '../domain/errors';

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
 * Ways to reach koffi, tried in order; each names where it looked for the error message.
 * - The esbuild bundle (`dist/localsign.cjs`, CJS, koffi external): the bundle's own `require`,
 *   which resolves from the bundle's real path (also when started through an npm bin symlink)
 *   and finds the node_modules next to it. esbuild leaves `require('koffi')` as it is.
 * - A Node single executable: its `require()` loads built-ins only (nodejs/node
 *   doc/api/single-executable-applications.md), so the first way throws; a full require made by
 *   `createRequire(process.execPath)` finds `<dir of executable>/node_modules/koffi`, and the flat
 *   layout `<dir of executable>/koffi/` is tried last.
 * - From source (vitest, tsx), where ESM has no `require`: resolve from the entry script
 *   (`process.argv[1]`), inside the project. We do not use `import.meta.url`: esbuild's CJS
 *   output empties it and warns at every build.
 * Never from the working directory: the service must not load native code from wherever it was
 * started. koffi then loads its prebuilt binary package (`@koromix/koffi-<os>-<arch>`) itself.
 */
function koffiCandidates(): { where: string; load: () => unknown }[] {
  const list: { where: string; load: () => unknown }[] = [];
  if (typeof require === 'function') list.push({ where: 'the bundle', load: () => require('koffi') });
  // Node makes a script's argv[1] absolute; a relative one is a single executable repeating its
  // argv[0] as typed ("localsign"), which would resolve from the working directory.
  const script = process.argv[1];
  if (script && isAbsolute(script)) list.push({ where: `node_modules of ${script}`, load: () => createRequire(script)('koffi') });
  const beside = dirname(process.execPath);
  list.push({ where: `node_modules of ${process.execPath}`, load: () => createRequire(process.execPath)('koffi') });
  list.push({ where: join(beside, 'koffi'), load: () => createRequire(process.execPath)(join(beside, 'koffi')) });
  return list;
}

/** Resolves and loads koffi once per process; throws ChipError listing where it looked. */
export function loadKoffi(): Koffi {
  if (cachedKoffi) return cachedKoffi;
  const tried: string[] = [];
  for (const { where, load } of koffiCandidates()) {
    try {
      const required = load() as Koffi & { default?: Koffi };
      cachedKoffi = typeof required.load === 'function' ? required : (required.default as Koffi);
      return cachedKoffi;
    } catch (error) {
      tried.push(`${where} (${firstLine(error)})`);
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
    const dlopenReason = firstLine(error).replace(/^Failed to load shared library:\s*/i, '');
    // glibc reports a library for another CPU as "No such file or directory"; say what it is.
    const fileArch = binaryArchitecture(absolute);
    const reason = fileArch && fileArch !== process.arch ? `${dlopenReason} (the file is a ${fileArch} binary)` : dlopenReason;
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

// ELF e_machine (System V gABI), PE COFF Machine (Microsoft PE format §3.3.1) and Mach-O
// cputype values, named as Node names process.arch.
const ELF_MACHINES: Record<number, string> = { 0x03: 'ia32', 0x28: 'arm', 0x3e: 'x64', 0xb7: 'arm64', 0xf3: 'riscv64' };
const PE_MACHINES: Record<number, string> = { 0x14c: 'ia32', 0x8664: 'x64', 0xaa64: 'arm64', 0x1c4: 'arm' };
const MACHO_CPUS: Record<number, string> = { 0x01000007: 'x64', 0x0100000c: 'arm64', 0x7: 'ia32' };

/** The CPU a shared library is built for, read from its header; null when not recognised. */
export function binaryArchitecture(path: string): string | null {
  const header = Buffer.alloc(4096);
  let length = 0;
  const fd = openSync(path, 'r');
  try {
    length = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (length >= 20 && header.readUInt32BE(0) === 0x7f454c46) {
    const machine = header[5] === 2 ? header.readUInt16BE(18) : header.readUInt16LE(18);
    return ELF_MACHINES[machine] ?? `ELF machine 0x${machine.toString(16)}`;
  }
  if (length >= 64 && header.readUInt16LE(0) === 0x5a4d) {
    const pe = header.readUInt32LE(0x3c);
    if (pe + 6 > length || header.readUInt32BE(pe) !== 0x50450000) return null;
    const machine = header.readUInt16LE(pe + 4);
    return PE_MACHINES[machine] ?? `PE machine 0x${machine.toString(16)}`;
  }
  if (length >= 8 && header.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = header.readUInt32LE(4);
    return MACHO_CPUS[cpu] ?? `Mach-O CPU 0x${cpu.toString(16)}`;
  }
  return null;
}
