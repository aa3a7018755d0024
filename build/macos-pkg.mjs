// The macOS package, built on Linux: dist/installers/localsign-<version>.pkg, one flat package for
// Apple silicon and Intel (a universal executable made of dist/localsign-darwin-arm64 and -x64),
// written by our own writers in build/macos/ (universal binary, odc cpio, Bom, xar): no Apple tool
// runs here. It installs
//   /usr/local/lib/localsign/localsign             the executable (ad-hoc signed slices)
//   /usr/local/lib/localsign/node_modules/         koffi and its two macOS prebuilts (dist/node_modules)
//   /usr/local/lib/localsign/uninstall             installers/macos/uninstall.sh ([--purge])
//   /usr/local/lib/localsign/LICENSES.txt
//   /usr/local/bin/localsign                       a link to the executable, on PATH
//   /Library/LaunchDaemons/com.localsign.service.plist   rendered by src/install/service-plan.ts,
//                                                  as `localsign service install` writes it
// all root:wheel (0:0), nothing group- or world-writable, with installers/macos/scripts/ as its
// preinstall and postinstall. installers/macos/build-pkg.sh, on a Mac, re-signs and notarizes it.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { importTs } from './ts-module.mjs';

export const PKG_IDENTIFIER = 'com.localsign.pkg';
const EXE = '/usr/local/lib/localsign/localsign';

/** The archive's time for every entry: the commit's (SOURCE_DATE_EPOCH first), so two builds of one commit match. */
function buildTime() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync('git', ['log', '-1', '--format=%ct'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

/** The staged tree as payload entries: root-owned, 0755 for directories, links and executables, else 0644. */
function payloadEntries(root, mtime) {
  const entries = [];
  const walk = (abs) => {
    const st = lstatSync(abs);
    const rel = relative(root, abs).split(sep).join(posix.sep);
    const path = rel === '' ? '.' : `./${rel}`;
    const base = { path, uid: 0, gid: 0, mtime };
    if (st.isDirectory()) {
      entries.push({ ...base, type: 'dir', mode: 0o755, data: Buffer.alloc(0) });
      for (const name of readdirSync(abs).sort()) walk(join(abs, name));
    } else if (st.isSymbolicLink()) {
      entries.push({ ...base, type: 'link', mode: 0o755, data: Buffer.from(readlinkSync(abs), 'utf8') });
    } else if (st.isFile()) {
      entries.push({ ...base, type: 'file', mode: st.mode & 0o111 ? 0o755 : 0o644, data: readFileSync(abs) });
    } else {
      throw new Error(`${abs}: neither a file, a directory nor a link`);
    }
  };
  walk(root);
  return entries;
}

/** Writes `out`/localsign-<version>.pkg and returns its path; `licences` is LICENSES.txt's text. */
export async function buildPkg({ out, version, fast, licences }) {
  const [{ universalBinary }, { flatPkg }, { planService }] = await Promise.all([importTs('build/macos/universal.ts'), importTs('build/macos/flat-pkg.ts'), importTs('src/install/service-plan.ts')]);
  const root = resolve(out, 'pkg-root');
  rmSync(root, { recursive: true, force: true });
  const lib = join(root, dirname(EXE));
  mkdirSync(lib, { recursive: true });
  const slices = ['arm64', 'x64'].map((arch) => readFileSync(join('dist', `localsign-darwin-${arch}`)));
  writeFileSync(join(root, EXE), universalBinary(slices));
  chmodSync(join(root, EXE), 0o755);
  // The chip bridge build:sea staged beside the executables.
  for (const arch of ['arm64', 'x64']) {
    if (!existsSync(join('dist', 'node_modules', '@koromix', `koffi-darwin-${arch}`))) throw new Error('dist/node_modules has no macOS koffi: build the executables first (LOCALSIGN_SEA_TARGETS=mac npm run build:sea)');
  }
  cpSync(join('dist', 'node_modules'), join(lib, 'node_modules'), { recursive: true });
  copyFileSync(join('installers', 'macos', 'uninstall.sh'), join(lib, 'uninstall'));
  chmodSync(join(lib, 'uninstall'), 0o755);
  writeFileSync(join(lib, 'LICENSES.txt'), licences);
  mkdirSync(join(root, 'usr', 'local', 'bin'), { recursive: true });
  symlinkSync('../lib/localsign/localsign', join(root, 'usr', 'local', 'bin', 'localsign'));
  // The plist `localsign service install` writes on a Mac for this executable: the same function.
  const plan = planService({ platform: 'darwin', scope: 'system', exec: [EXE], port: 8300, userHome: '/var/root', serviceFilePath: '/etc/localsign/service.json' });
  mkdirSync(join(root, dirname(plan.definitionPath)), { recursive: true });
  writeFileSync(join(root, plan.definitionPath), plan.definition);

  const mtime = buildTime();
  const scripts = ['preinstall', 'postinstall'].map((name) => ({ name, text: readFileSync(join('installers', 'macos', 'scripts', name), 'utf8') }));
  const pkg = flatPkg({ identifier: PKG_IDENTIFIER, version, title: `localsign ${version}`, minOs: '11.0', payload: payloadEntries(root, mtime), scripts, mtime, gzipLevel: fast ? 1 : 6 });
  rmSync(root, { recursive: true, force: true });
  const file = join(out, `localsign-${version}.pkg`);
  writeFileSync(file, pkg);
  return file;
}
