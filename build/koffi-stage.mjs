// The chip bridge beside the executable (src/chip/loader.ts), for every package: koffi's
// JavaScript, package.json and licence, and the prebuilt of each target, without koffi's C++
// sources, vendored headers and docs. koffi 3's entry points load src/koffi/index.cjs and
// src/koffi/src/static.cjs, so JavaScript is kept wherever it is, not by folder.
import { cpSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const KOFFI = join('node_modules', 'koffi');

/** Whether a path inside koffi's package (relative, either separator) goes into a package. */
export function keepKoffiPath(rel, isDirectory) {
  const parts = rel.split(/[/\\]/).filter(Boolean);
  if (parts.length === 0) return true;
  if (['vendor', 'doc', 'lib'].includes(parts[0])) return false;
  return isDirectory || /\.(cjs|js|mjs|json)$|^LICENSE/.test(parts.at(-1));
}

/** Folders left empty by the filter (koffi's src/koffi/src/abi held only assembly). */
function pruneEmpty(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) pruneEmpty(join(dir, e.name));
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}

/**
 * koffi into `dir`/node_modules/koffi, each prebuilt package dir into `dir`/node_modules/@koromix/
 * (without the .sha256 stamp build/tools.mjs leaves in it).
 */
export function stageKoffi(dir, prebuilts) {
  const to = join(dir, 'node_modules', 'koffi');
  cpSync(KOFFI, to, { recursive: true, dereference: true, filter: (p) => keepKoffiPath(relative(KOFFI, p), statSync(p).isDirectory()) });
  pruneEmpty(to);
  for (const p of prebuilts) cpSync(p, join(dir, 'node_modules', '@koromix', basename(p)), { recursive: true, dereference: true, filter: (f) => basename(f) !== '.sha256' });
}
