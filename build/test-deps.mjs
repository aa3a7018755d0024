// The Debian packages the tests use, and what each gives them: the one list. `.ci/run`
// and `npm run test:fresh` install it; `npm test` and its globalSetup (test/global-setup.ts)
// check it, and a missing tool stops the run at once with one line naming the tool and the package.
//   node build/test-deps.mjs install [all|test|windows|macos]   apt-get install what is not installed (sudo when not root), then check
//   node build/test-deps.mjs check [all|test|windows|macos]     exit 1 with one line when a tool is missing
//   node build/test-deps.mjs list [all|test|windows|macos]      the packages, one a line
// A new tool for the tests goes here, with the reason, and nowhere else.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `suite`: `test` for `npm test`, `windows` for `npm run test:windows`, `macos` for `npm run
 * test:macos`. `provides`: the commands
 * (looked up on PATH) or files the tests use from the package, checked before the run.
 */
export const TEST_PACKAGES = [
  { name: 'softhsm2', suite: 'test', provides: ['softhsm2-util', '/usr/lib/softhsm/libsofthsm2.so'], why: 'the PKCS#11 chip of the chip tests' },
  { name: 'opensc', suite: 'test', provides: ['pkcs11-tool', '/usr/lib/x86_64-linux-gnu/pkcs11-spy.so'], why: 'pkcs11-tool; the spy module that logs PKCS#11 calls' },
  { name: 'poppler-utils', suite: 'test', provides: ['pdfsig', 'pdftoppm', 'pdftotext', 'pdfinfo'], why: 'an independent verifier and renderer of every signed PDF' },
  { name: 'qpdf', suite: 'test', provides: ['qpdf'], why: 'qpdf --check on every signed PDF' },
  { name: 'mupdf-tools', suite: 'test', provides: ['mutool'], why: 'mutool sign -v, a third opinion' },
  { name: 'openssl', suite: 'test', provides: ['openssl'], why: 'test PKI, cms -verify, ts (the local TSA), OCSP and CRLs' },
  { name: 'libnss3-tools', suite: 'test', provides: ['certutil'], why: "pdfsig's trust store; the corpus PDF signed by another tool" },
  { name: 'fonts-dejavu-core', suite: 'test', provides: ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'], why: "poppler's text for the rendered stamps" },
  { name: 'git', suite: 'test', provides: ['git'], why: 'the commit stamp of the build' },
  { name: 'ca-certificates', suite: 'test', provides: ['/etc/ssl/certs/ca-certificates.crt'], why: 'the system CA bundle the HTTPS client starts from' },
  { name: 'e2fsprogs', suite: 'test', provides: ['mkfs.ext4', 'e2fsck'], why: 'the read-only config dir test (a loop-mounted ext4 image)' },
  { name: 'systemd', suite: 'test', provides: ['systemd-analyze'], why: 'systemd-analyze verify and security on the unit (not started)' },
  { name: 'libxml2-utils', suite: 'test', provides: ['xmllint'], why: "the launchd plists against Apple's DTD" },
  { name: 'libplist-utils', suite: 'test', provides: ['plistutil'], why: 'the launchd plists read as macOS reads them' },
  { name: 'gcc', suite: 'test', provides: ['gcc'], why: 'compiles the PIN-pad PKCS#11 shim (test/helpers/pinpad-shim)' },
  { name: 'libc6-dev', suite: 'test', provides: ['/usr/include/stdio.h'], why: "the shim's headers" },
  // Essential or required on Debian, listed so a trimmed image says what it lacks.
  { name: 'dpkg', suite: 'test', provides: ['dpkg-deb', 'dpkg'], why: 'builds the .deb; installs it in a throwaway root' },
  { name: 'passwd', suite: 'test', provides: ['useradd'], why: "the postinst's useradd (in the throwaway root)" },
  { name: 'util-linux', suite: 'test', provides: ['setpriv', 'unshare', 'nsenter', 'runuser'], why: "the throwaway root's mount namespace; the unit run as its User=" },
  { name: 'wine', suite: 'windows', provides: ['wine'], why: 'the Windows executable and installers under wine 8' },
  { name: 'wine64', suite: 'windows', provides: ['/usr/lib/wine/wine64'], why: 'a 64-bit wine (no i386 multiarch, no wine32)' },
  { name: 'nsis', suite: 'windows', provides: ['makensis'], why: 'builds the NSIS installer' },
  { name: 'osslsigncode', suite: 'windows', provides: ['osslsigncode'], why: 'Authenticode: signs and verifies with a throwaway certificate' },
  { name: 'wixl', suite: 'windows', provides: ['wixl'], why: 'builds the MSI' },
  { name: 'msitools', suite: 'windows', provides: ['msibuild'], why: 'msibuild adds the MSI tables wixl has no element for' },
  { name: 'llvm-14', suite: 'macos', provides: ['llvm-otool-14', 'llvm-objdump-14', 'llvm-lipo-14'], why: "the macOS executables' load commands, segments and slices, read by LLVM's Mach-O readers" },
  { name: 'libarchive-tools', suite: 'macos', provides: ['bsdtar'], why: "the .pkg (xar) and its Payload and Scripts (odc cpio) listed and extracted, the xar's checksums checked" },
  { name: '7zip', suite: 'macos', provides: ['7zz'], why: "a second reader of the .pkg: 7-Zip tests every file's checksum" },
  { name: 'cpio', suite: 'macos', provides: ['cpio'], why: "a second reader of the Payload's odc cpio (GNU cpio)" },
  { name: 'coreutils', suite: 'macos', provides: ['cksum'], why: "the Bom's checksums, as cksum(1) computes them" },
  { name: 'libxml2-utils', suite: 'macos', provides: ['xmllint'], why: 'Distribution, PackageInfo and the table of contents read by XPath' },
  { name: 'libplist-utils', suite: 'macos', provides: ['plistutil'], why: "the .pkg's launchd plist read as macOS reads it" },
];

/** The command that installs the list, named in the missing-tool line. */
export const INSTALL_COMMAND = 'npm run test:fresh';

const SUITES = ['all', 'test', 'windows', 'macos'];
const inSuite = (suite) => TEST_PACKAGES.filter((p) => suite === 'all' || p.suite === suite);
// A package two suites use is listed in each, with its reason there; installed once.
const namesIn = (suite) => [...new Set(inSuite(suite).map((p) => p.name))];

// sbin is searched too: useradd or mkfs.ext4 are installed even when a user's PATH leaves it out.
function onPath(tool, path) {
  const dirs = [...(path ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean);
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function present(thing, path) {
  if (!isAbsolute(thing)) return onPath(thing, path);
  try {
    accessSync(thing, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Every tool or file of `suite` that is missing, with its package. */
export function missingTools(suite = 'test', path = process.env.PATH) {
  return inSuite(suite).flatMap((p) => p.provides.filter((t) => !present(t, path)).map((tool) => ({ tool, package: p.name })));
}

/** The one line a run stops with, or null when nothing is missing. */
export function missingToolLine(missing) {
  if (missing.length === 0) return null;
  const named = missing.map((m) => `${m.tool} (apt package ${m.package})`).join(', ');
  return `missing tool${missing.length > 1 ? 's' : ''}: ${named}; run ${INSTALL_COMMAND}`;
}

/** Packages of `suite` that dpkg does not list as installed (all of them where there is no dpkg). */
function notInstalled(suite) {
  const names = namesIn(suite);
  const r = spawnSync('dpkg-query', ['-W', '-f', '${Package} ${db:Status-Abbrev}\n', ...names], { encoding: 'utf8' });
  const ok = new Set((r.stdout ?? '').split('\n').filter((l) => / ii\s*$/.test(l)).map((l) => l.split(' ')[0]));
  return names.filter((n) => !ok.has(n));
}

function install(suite) {
  const wanted = notInstalled(suite);
  if (wanted.length > 0) {
    const asRoot = process.getuid?.() === 0;
    // sudo resets the environment: the frontend goes on the command line.
    const run = (args) => {
      const command = [...(asRoot ? [] : ['sudo']), 'env', 'DEBIAN_FRONTEND=noninteractive', ...args];
      const r = spawnSync(command[0], command.slice(1), { stdio: 'inherit' });
      if (r.status !== 0) {
        console.error(`test-deps: ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}); its own messages are above`);
        return false;
      }
      return true;
    };
    console.log(`test-deps: apt-get install ${wanted.join(' ')}${asRoot ? '' : ' (with sudo)'}`);
    if (!run(['apt-get', 'update', '-qq']) || !run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...wanted])) return 1;
  }
  return check(suite);
}

function check(suite) {
  const line = missingToolLine(missingTools(suite));
  if (line) {
    console.error(line);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, suite = 'all'] = process.argv.slice(2);
  if (!SUITES.includes(suite) || !['install', 'check', 'list'].includes(command ?? '')) {
    console.error('usage: node build/test-deps.mjs install|check|list [all|test|windows|macos]');
    process.exit(2);
  }
  if (command === 'list') console.log(namesIn(suite).join('\n'));
  else process.exitCode = command === 'install' ? install(suite) : check(suite);
}
