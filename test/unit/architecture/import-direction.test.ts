/**
 * Holds the layout of AGENTS.md: imports flow one way, the pure folders stay pure, and only
 * config/env.ts reads the environment. A dozen lines over the import graph instead of a tool: the
 * rules are few, and a failure names the file, the import and the rule it breaks.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../../src');

/**
 * Layers, top to bottom. A module may import its own folder and any folder of a lower layer;
 * folders that share a layer may import each other only where PEERS says so.
 */
const LAYERS: string[][] = [
  ['main.ts', 'sign-worker.ts', 'pdf-worker.ts'],
  ['cli'],
  ['service'],
  ['api'],
  ['context.ts'],
  ['signing'],
  ['requests', 'workers'],
  ['platform', 'chip', 'pades', 'evm', 'pki'],
  ['net', 'diagnostics', 'install'],
  ['store', 'der'],
  ['log'],
  ['config'],
  // The service's own words: its errors and the types every layer speaks (issue 18).
  ['domain'],
  ['types', 'assets'],
];
/**
 * Entry points do not call each other: the CLI reaches the HTTP layer only through service/,
 * which starts and stops it.
 */
const FORBIDDEN: Record<string, string[]> = { cli: ['api'] };
const PEERS: Record<string, string[]> = {
  // The embedded platform's catalogue is the chip's keys; EVM credentials carry an address; an
  // operator's design is checked against the stamp's placeholder rules (embedded-designs.ts).
  platform: ['chip', 'evm', 'pki', 'pades'],
  // Local validation (pades/validate/validate.ts) checks chains, OCSP and CRLs with pki/; pki never imports pades.
  pades: ['pki'],
};
/** Pure byte work (STYLE §3.4): no fs, clock, network or framework. */
const PURE = new Set(['pades', 'evm', 'pki', 'der']);
const IMPURE_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|tls|dgram|child_process|worker_threads)$|^(hono|@hono\/|citty|consola|undici|lowdb|koffi)/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The folder under src/, or the file name for a top-level module (`context.ts`, `main.ts`). */
function unitOf(path: string): string {
  const first = relative(SRC, path).split('/')[0]!;
  return !first.includes('.') && !existsSync(join(SRC, first)) && existsSync(join(SRC, `${first}.ts`)) ? `${first}.ts` : first;
}
const layerOf = (unit: string): number => LAYERS.findIndex((l) => l.includes(unit));

/**
 * The PAdES engine's rooms (issue 18), bottom to top: CMS and timestamp bytes, PDF objects, the
 * stamp, signing, validation. A room imports only rooms below it, and everyone enters a room
 * through its index.ts (the test below). The CMS room holds no pdf-lib: the service's own
 * process reaches it at start-up (the chip engine, the platform's answers, the TSA client)
 * without loading the PDF engine, which is read on first use (vendor-bundle.test.ts).
 */
const PADES_ROOMS = ['cms', 'pdf', 'stamp', 'sign', 'validate'];
/**
 * Links between the folders of src/ (a folder, or a top-level file, importing another at least
 * once). 91 before issue 18 split pades/ and signing/ into rooms: the rooms live inside their
 * folders, so the split may not add a link (errors/ became part of domain/, the service's own
 * words, so the domain types added none either), and neither may later work without a reason.
 * 92: workers -> pki, the PDF worker's warm-up issues its own throwaway certificate (warm-up.ts).
 */
const FOLDER_LINKS_BUDGET = 92;

/** The file an import names: `x.ts`, or `x/index.ts` for a folder; null outside src/'s TypeScript. */
function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return null;
}

function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|require\(\s*'([^']+)'\s*\)/g)) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

describe('the import graph (AGENTS.md)', () => {
  const all = files(SRC);

  it('every folder of src/ has a layer', () => {
    const unknown = [...new Set(all.map(unitOf))].filter((u) => layerOf(u) < 0);
    expect(unknown).toEqual([]);
  });

  it('imports flow one way: down the layers, never back up', () => {
    const wrong: string[] = [];
    for (const file of all) {
      const from = unitOf(file);
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const to = unitOf(resolve(dirname(file), spec));
        if (to === from || to.startsWith('..')) continue;
        const ok = (layerOf(to) > layerOf(from) || (PEERS[from] ?? []).includes(to)) && !(FORBIDDEN[from] ?? []).includes(to);
        if (!ok) wrong.push(`${relative(SRC, file)} imports ${spec} (${from} -> ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('pades/, evm/, pki/ and der/ are pure: no fs, network, framework or clock', () => {
    const wrong: string[] = [];
    for (const file of all.filter((f) => PURE.has(unitOf(f)))) {
      const source = readFileSync(file, 'utf8');
      for (const spec of importsOf(source)) if (IMPURE_MODULES.test(spec)) wrong.push(`${relative(SRC, file)} imports ${spec}`);
      if (/\bDate\.now\(\)|new Date\(\)/.test(source)) wrong.push(`${relative(SRC, file)} reads the clock`);
    }
    expect(wrong).toEqual([]);
  });

  it('only cli/ imports the TypeScript client (clients/typescript), and only its public face', () => {
    const wrong: string[] = [];
    for (const file of all) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.includes('clients/')) continue;
        if (unitOf(file) !== 'cli' || !spec.endsWith('clients/typescript/src/index')) wrong.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a folder with an index.ts is entered only through it', () => {
    const faces = all.filter((f) => f.endsWith('/index.ts')).map((f) => dirname(f));
    const wrong: string[] = [];
    for (const file of all) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = resolveImport(file, spec);
        if (!target) continue;
        for (const face of faces) {
          const inside = (p: string) => p.startsWith(`${face}/`);
          if (inside(target) && !inside(file) && target !== join(face, 'index.ts')) {
            wrong.push(`${relative(SRC, file)} imports ${spec}: enter ${relative(SRC, face)}/ through its index.ts`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a _-prefixed file is private to its folder: imported only from there, and no index.ts re-exports it', () => {
    const wrong: string[] = [];
    for (const file of all) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const target = spec.startsWith('.') ? resolveImport(file, spec) : null;
        if (!target || !basename(target).startsWith('_')) continue;
        if (dirname(target) !== dirname(file)) wrong.push(`${relative(SRC, file)} imports ${spec}, private to ${relative(SRC, dirname(target))}/`);
        else if (basename(file) === 'index.ts') wrong.push(`${relative(SRC, file)} re-exports ${spec}: a door names public files only`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the PAdES rooms import only the rooms below them (cms, pdf, stamp, sign, validate)', () => {
    const roomOf = (p: string) => PADES_ROOMS.indexOf(relative(join(SRC, 'pades'), p).split('/')[0]!);
    const wrong: string[] = [];
    for (const file of all.filter((f) => roomOf(f) >= 0)) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const target = spec.startsWith('.') ? resolveImport(file, spec) : null;
        if (target && roomOf(target) > roomOf(file)) wrong.push(`${relative(SRC, file)} imports ${spec} (a room above it)`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`the folders of src/ have at most ${FOLDER_LINKS_BUDGET} links between them`, () => {
    const links = new Set<string>();
    for (const file of all) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const to = unitOf(resolve(dirname(file), spec));
        if (to !== unitOf(file) && !to.startsWith('..')) links.add(`${unitOf(file)} -> ${to}`);
      }
    }
    expect([...links].length, [...links].sort().join('\n')).toBeLessThanOrEqual(FOLDER_LINKS_BUDGET);
  });

  it('only config/env.ts reads process.env', () => {
    const readers = all.filter((f) => /process\.env\b/.test(readFileSync(f, 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''))).map((f) => relative(SRC, f));
    expect(readers).toEqual(['config/env.ts']);
  });
});
