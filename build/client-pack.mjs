// dist/localsign-client-<version>.tgz: the TypeScript client (clients/typescript) as npm packs it,
// compiled (dist/*.js and *.d.ts), for an application to `npm install`. Run by
// bundle.mjs; on its own: `node build/client-pack.mjs [OUT_DIR]`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const CLIENT = resolve('clients/typescript');
const INPUTS = ['package.json', 'README.md', 'tsconfig.json', 'src'];

/** Newest modification time among the client's inputs (a folder's files included). */
function newestInput() {
  let newest = 0;
  const visit = (path) => {
    const st = statSync(path);
    newest = Math.max(newest, st.mtimeMs);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const name of INPUTS) visit(join(CLIENT, name));
  return newest;
}

/**
 * Compiles and packs in a scratch copy, so two builds at once (tests build into other
 * LOCALSIGN_OUT_DIRs) never write the same files, and renames the tarball into place. Skipped
 * when the tarball is newer than every input: tsc is the slow part of the build (2-4 s on a 2-core
 * machine), and most builds change nothing here.
 */
export function packClient(out) {
  const { name, version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
  // npm's file name for a scoped package: @localsign/client 0.2.0 -> localsign-client-0.2.0.tgz
  const file = `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
  const target = resolve(out, file);
  const newest = newestInput();
  const fresh = (path) => existsSync(path) && statSync(path).mtimeMs >= newest;
  if (fresh(target)) return target;
  // Another out dir (LOCALSIGN_OUT_DIR, the release-bundle test): dist's fresh tarball is the same file.
  const usual = resolve('dist', file);
  if (usual !== target && fresh(usual)) {
    mkdirSync(out, { recursive: true });
    copyFileSync(usual, `${target}.tmp`);
    renameSync(`${target}.tmp`, target);
    return target;
  }
  const stage = mkdtempSync(join(tmpdir(), 'localsign-client-pack-'));
  let packed = null;
  try {
    for (const input of ['package.json', 'README.md', 'src']) cpSync(join(CLIENT, input), join(stage, input), { recursive: true });
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(CLIENT, 'tsconfig.json'), '--rootDir', join(CLIENT, 'src'), '--outDir', join(stage, 'dist')], { stdio: 'inherit' });
    // Packed beside the target (the same file system), then renamed into place: a reader sees the
    // old tarball or the new one, never half of one.
    mkdirSync(out, { recursive: true });
    packed = mkdtempSync(join(resolve(out), '.client-pack-'));
    // --ignore-scripts: nothing of ours runs at pack time; --silent: npm's file listing is noise here.
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['pack', stage, '--pack-destination', packed, '--ignore-scripts', '--silent'], { stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' });
    renameSync(join(packed, file), target);
    return target;
  } finally {
    rmSync(stage, { recursive: true, force: true });
    if (packed) rmSync(packed, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve('build/client-pack.mjs')) {
  console.log(`built ${packClient(process.argv[2] ?? 'dist')}`);
}
