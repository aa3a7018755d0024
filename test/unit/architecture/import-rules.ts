/**
 * The layout rules of AGENTS.md as functions over a tree of sources (a path under src/ and its
 * text), so that import-direction.test.ts runs them on src/ and on small planted trees alike. The
 * folder rule is not written here: it is the table of AGENTS.md's 'Imports', read by
 * parseImportTable, so the rule a newcomer reads is the rule the test holds. Each error says what
 * is wrong and what to do about it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

/** Sources by their path under src/, with forward slashes ('workers/pool.ts'). */
export type Tree = ReadonlyMap<string, string>;

export function readTree(dir: string): Tree {
  const tree = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) tree.set(relative(dir, path).split('\\').join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return tree;
}

/** The modules a source imports, re-exports, imports dynamically or requires. */
function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|require\(\s*'([^']+)'\s*\)/g)) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

/** Each relative import of the tree: the importing file, the import as written, and the path it names (may start with '..': outside src/). */
function* relativeImports(tree: Tree): Generator<{ file: string; spec: string; path: string }> {
  for (const [file, source] of tree) {
    for (const spec of importsOf(source)) if (spec.startsWith('.')) yield { file, spec, path: posix.normalize(posix.join(posix.dirname(file), spec)) };
  }
}

/** The file an import names: `x.ts`, or `x/index.ts` for a folder; null when the tree has neither. */
function fileOf(tree: Tree, path: string): string | null {
  for (const candidate of [`${path}.ts`, `${path}/index.ts`]) if (tree.has(candidate)) return candidate;
  return null;
}

/** The folder under src/, or the file for a module at the top (`context.ts`, `main.ts`). */
function unitOf(tree: Tree, path: string): string {
  const first = path.split('/')[0]!;
  if (path.includes('/')) return first;
  return first.endsWith('.ts') ? first : tree.has(`${first}.ts`) ? `${first}.ts` : first;
}

// ---------------------------------------------------------------------------------------------
// Which folder may import which: the table of AGENTS.md 'Imports'.

export interface ImportRow {
  unit: string;
  mayImport: string[];
  why: string;
}

/** Every folder may import this one (AGENTS.md 'Imports'): the service's own words, which import nothing. */
const EVERYONE_MAY_IMPORT = 'domain';
/**
 * Links no row may grant, whatever the table says: the CLI starts the HTTP layer only through
 * service/, which also stops it (a command that imported api/ would serve without recovery,
 * retention or the drain on stop).
 */
const NEVER: Record<string, { to: string; why: string; instead: string }[]> = {
  cli: [{ to: 'api', why: 'the CLI starts the HTTP layer through service/, which also recovers, retains and drains it', instead: 'call service/ (service/server.ts)' }],
};

const WHERE = "AGENTS.md 'Imports'";

/** The rows of the table under `## Imports`, top to bottom; throws when there is no such table. */
export function parseImportTable(markdown: string): ImportRow[] {
  const section = markdown.split(/^## Imports\s*$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error(`${WHERE}: AGENTS.md has no '## Imports' section; the import rule is its table`);
  const rows: ImportRow[] = [];
  for (const line of section.split('\n')) {
    const cells = line.match(/^\|(.*)\|\s*$/)?.[1]!.split('|').map((c) => c.trim());
    if (!cells || cells.length !== 3 || !cells[0]!.startsWith('`')) continue;
    const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ unit: names(cells[0]!)[0]!, mayImport: names(cells[1]!), why: cells[2]! });
  }
  if (rows.length === 0) throw new Error(`${WHERE}: the section has no table of | folder | may import | why |`);
  return rows;
}

/**
 * The table against itself and against the tree: every folder of src/ has a row, a row lists
 * only folders further down and with a reason, no row grants a link NEVER allows, every import
 * between folders is in its row, and every link a row lists is used.
 */
export function folderImportErrors(tree: Tree, rows: ImportRow[]): string[] {
  const errors: string[] = [];
  const position = new Map(rows.map((r, i) => [r.unit, i]));
  const rowOf = new Map(rows.map((r) => [r.unit, r]));
  const units = new Set([...tree.keys()].map((f) => unitOf(tree, f)));

  for (const unit of [...units].sort()) {
    if (!rowOf.has(unit)) errors.push(`src/${unit} has no row in ${WHERE}: add one below the folders that import it and above the ones it imports, saying what it may import and why`);
  }
  for (const row of rows) {
    if (!units.has(row.unit)) errors.push(`${WHERE} has a row for ${row.unit}, which is not in src/: take the row out`);
    if (row.mayImport.length > 0 && row.why.length === 0) errors.push(`${WHERE}: the row of ${row.unit} gives no reason for what it imports`);
    for (const to of row.mayImport) {
      const never = NEVER[row.unit]?.find((n) => n.to === to);
      if (never) errors.push(`${WHERE} lets ${row.unit} import ${to}, which it never may: ${never.why}`);
      else if (!position.has(to)) errors.push(`${WHERE}: ${row.unit} lists ${to}, which has no row`);
      else if (position.get(to)! <= position.get(row.unit)!) errors.push(`${WHERE}: ${row.unit} lists ${to}, which is not below it; a folder imports only folders further down the table`);
    }
  }

  const used = new Set<string>();
  for (const { file, spec, path } of relativeImports(tree)) {
    if (path.startsWith('..')) continue;
    const from = unitOf(tree, file);
    const to = unitOf(tree, fileOf(tree, path) ?? path);
    if (to === from || to === EVERYONE_MAY_IMPORT) continue;
    used.add(`${from} -> ${to}`);
    const row = rowOf.get(from);
    if (!row || !position.has(to) || row.mayImport.includes(to)) continue;
    const here = `src/${file} imports ${spec}`;
    const never = NEVER[from]?.find((n) => n.to === to);
    if (never) errors.push(`${here}: ${from} never imports ${to}, ${never.why}; ${never.instead}`);
    else if (position.get(to)! < position.get(from)!) {
      errors.push(
        `${here}: src/${from} may not import src/${to}: ${to} is above ${from} in ${WHERE} (imports flow down, never back up); ` +
          `move the piece both need down, into the folder that owns it or ${EVERYONE_MAY_IMPORT}/ for types and errors, or have ${to} pass it in`,
      );
    } else {
      errors.push(
        `${here}: src/${from} may import ${[...row.mayImport, EVERYONE_MAY_IMPORT].join(', ')} (${WHERE}), not ${to}; ` +
          `${to} is below ${from}, so if ${from} needs it, add ${to} to the row of ${from} there, with the reason`,
      );
    }
  }
  for (const row of rows) {
    for (const to of row.mayImport) {
      if (!used.has(`${row.unit} -> ${to}`) && position.has(to) && units.has(row.unit)) errors.push(`${WHERE}: ${row.unit} lists ${to}, but nothing in src/${row.unit} imports it: take ${to} off the row`);
    }
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// The other layout rules of AGENTS.md.

/** Pure byte work (STYLE §3.4): no fs, clock, network or framework. A folder, or one file. */
const PURE = ['pades', 'evm', 'ecdsa', 'pki', 'der', 'api/base64-repair.ts'];
const IMPURE_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|tls|dgram|child_process|worker_threads)$|^(hono|@hono\/|citty|consola|undici|lowdb|koffi)/;

export function pureErrors(tree: Tree): string[] {
  const errors: string[] = [];
  for (const [file, source] of tree) {
    if (!PURE.some((p) => file === p || file.startsWith(`${p}/`))) continue;
    for (const spec of importsOf(source)) if (IMPURE_MODULES.test(spec)) errors.push(`src/${file} imports ${spec}, and it is pure: pass the data in from the caller`);
    if (/\bDate\.now\(\)|new Date\(\)/.test(source)) errors.push(`src/${file} reads the clock, and it is pure: take the time as a parameter`);
  }
  return errors;
}

/** A folder with an index.ts is entered only through it (its door). */
export function doorErrors(tree: Tree): string[] {
  const doors = [...tree.keys()].filter((f) => f.endsWith('/index.ts')).map((f) => posix.dirname(f));
  const errors: string[] = [];
  for (const { file, spec, path } of relativeImports(tree)) {
    const target = fileOf(tree, path);
    if (!target) continue;
    for (const door of doors) {
      const inside = (p: string) => p.startsWith(`${door}/`);
      if (inside(target) && !inside(file) && target !== `${door}/index.ts`) errors.push(`src/${file} imports ${spec}: enter ${door}/ through its index.ts (export what you need there)`);
    }
  }
  return errors;
}

/** A _-prefixed file is private to its folder: imported only from there, and no index.ts re-exports it. */
export function privateFileErrors(tree: Tree): string[] {
  const errors: string[] = [];
  for (const { file, spec, path } of relativeImports(tree)) {
    const target = fileOf(tree, path);
    if (!target || !posix.basename(target).startsWith('_')) continue;
    if (posix.dirname(target) !== posix.dirname(file)) errors.push(`src/${file} imports ${spec}, private to ${posix.dirname(target)}/: have a public file there export what you need`);
    else if (posix.basename(file) === 'index.ts') errors.push(`src/${file} re-exports ${spec}: a door names public files only (rename the file without _ if callers need it)`);
  }
  return errors;
}

/**
 * The PAdES engine's rooms, bottom to top: CMS and timestamp bytes, PDF objects, the stamp,
 * signing, validation. A room imports only rooms below it. The CMS room holds no pdf-lib: the
 * service's own process reaches it at start-up (the chip engine, the platform's answers, the TSA
 * client) without loading the PDF engine, which is read on first use (vendor-bundle.test.ts).
 */
const PADES_ROOMS = ['cms', 'pdf', 'stamp', 'sign', 'validate'];

export function roomErrors(tree: Tree): string[] {
  const roomOf = (p: string) => (p.startsWith('pades/') ? PADES_ROOMS.indexOf(p.split('/')[1]!) : -1);
  const errors: string[] = [];
  for (const { file, spec, path } of relativeImports(tree)) {
    const target = fileOf(tree, path);
    if (roomOf(file) >= 0 && target && roomOf(target) > roomOf(file)) errors.push(`src/${file} imports ${spec}, a room above it (${PADES_ROOMS.join(', ')}): move the piece down into the lower room`);
  }
  return errors;
}

/** Only cli/ imports the TypeScript client (clients/typescript), and only its public face. */
export function clientErrors(tree: Tree): string[] {
  const errors: string[] = [];
  for (const [file, source] of tree) {
    for (const spec of importsOf(source)) {
      if (!spec.includes('clients/')) continue;
      if (unitOf(tree, file) !== 'cli' || !spec.endsWith('clients/typescript/src/index')) errors.push(`src/${file} imports ${spec}: only cli/ uses the client, through clients/typescript/src/index`);
    }
  }
  return errors;
}

/** The files that read process.env (comments aside): config/env.ts alone. */
export function environmentReaders(tree: Tree): string[] {
  return [...tree].filter(([, source]) => /process\.env\b/.test(source.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''))).map(([file]) => file);
}
