import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCHD_LABEL } from '../../src/install/launchd-plist';
import { planService } from '../../src/install/service-plan';
import { readBom } from './helpers/bom-read';
import { bsdtarList, type Listed } from './helpers/listing';
import { LIPO, loadCommands, machHeader } from './helpers/macho-check';

/**
 * Issue 27: dist/installers/localsign-<version>.pkg as `npm run build:installers` writes it (here
 * with LOCALSIGN_INSTALLERS_FAST, gzip -1), read by tools we did not write: bsdtar and 7-Zip for
 * the xar archive and its cpio archives, GNU cpio, xmllint, plistutil, cksum, llvm-lipo and
 * llvm-otool. What only a Mac shows (installd running it, Gatekeeper, notarization) is in the
 * README.
 */
const ROOT = resolve(__dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const EXE = './usr/local/lib/localsign/localsign';
const PLIST = `./Library/LaunchDaemons/${LAUNCHD_LABEL}.plist`;

let work: string;
let pkg: string;
/** The .pkg extracted by bsdtar. */
let x: string;
/** Its Payload extracted by bsdtar. */
let root: string;
let payload: Listed[];

const xpath = (file: string, expr: string) => execFileSync('xmllint', ['--nonet', '--xpath', expr, file], { encoding: 'utf8' }).trim();
const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');
const cksum = (input: Buffer) => Number(execFileSync('cksum', { input, encoding: 'utf8' }).split(' ')[0]);

beforeAll(() => {
  for (const arch of ['arm64', 'x64']) {
    if (!existsSync(join(ROOT, 'dist', `localsign-darwin-${arch}`))) throw new Error(`dist/localsign-darwin-${arch} is missing: run npm run test:macos, which builds it first`);
  }
  work = mkdtempSync(join(tmpdir(), 'localsign-pkg-'));
  execFileSync(process.execPath, ['build/installers.mjs'], {
    cwd: ROOT,
    env: { ...process.env, LOCALSIGN_INSTALLERS: 'pkg', LOCALSIGN_INSTALLERS_SKIP_SEA: '1', LOCALSIGN_INSTALLERS_FAST: '1', LOCALSIGN_INSTALLERS_OUT: work },
    stdio: 'ignore',
  });
  pkg = join(work, `localsign-${VERSION}.pkg`);
  x = join(work, 'x');
  root = join(work, 'root');
  mkdirSync(x);
  mkdirSync(root);
  execFileSync('bsdtar', ['-xf', pkg, '-C', x]);
  execFileSync('bsdtar', ['-xf', join(x, 'localsign.pkg', 'Payload'), '-C', root]);
  payload = bsdtarList(join(x, 'localsign.pkg', 'Payload'));
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the .pkg as a xar archive', () => {
  it('is listed by bsdtar and tested by 7-Zip: a Distribution and one component', () => {
    expect(bsdtarList(pkg).map((e) => e.path)).toEqual(['Distribution', 'localsign.pkg', 'localsign.pkg/Bom', 'localsign.pkg/PackageInfo', 'localsign.pkg/Payload', 'localsign.pkg/Scripts']);
    const tested = spawnSync('7zz', ['t', pkg], { encoding: 'utf8' });
    expect(tested.status, tested.stdout).toBe(0);
    expect(tested.stdout).toMatch(/^Everything is Ok$/m);
  });

  /** The header (28 bytes, big-endian), the table of contents inflated, the heap's start. */
  const archive = () => {
    const b = readFileSync(pkg);
    expect(b.toString('latin1', 0, 4)).toBe('xar!');
    const headerSize = b.readUInt16BE(4);
    const compressed = Number(b.readBigUInt64BE(8));
    const toc = inflateSync(b.subarray(headerSize, headerSize + compressed));
    expect(toc.length).toBe(Number(b.readBigUInt64BE(16)));
    const file = join(work, 'toc.xml');
    writeFileSync(file, toc);
    return { b, heap: headerSize + compressed, toc: file, tocBytes: b.subarray(headerSize, headerSize + compressed), algorithm: b.readUInt32BE(24) };
  };

  it('every checksum of its table of contents verifies: the table itself, and each file archived and extracted', () => {
    const { b, heap, toc, tocBytes, algorithm } = archive();
    expect(algorithm).toBe(1); // SHA-1
    expect(xpath(toc, 'string(/xar/toc/checksum/@style)')).toBe('sha1');
    const tocAt = heap + Number(xpath(toc, 'string(/xar/toc/checksum/offset)'));
    expect(b.subarray(tocAt, tocAt + Number(xpath(toc, 'string(/xar/toc/checksum/size)'))).toString('hex')).toBe(sha1(tocBytes));
    const count = Number(xpath(toc, 'count(//file[data])'));
    expect(count).toBe(5);
    for (let i = 1; i <= count; i += 1) {
      const f = (q: string) => xpath(toc, `string((//file[data])[${i}]/${q})`);
      const name = f('name');
      const path = name === 'Distribution' ? name : `localsign.pkg/${name}`;
      const at = heap + Number(f('data/offset'));
      const archived = b.subarray(at, at + Number(f('data/length')));
      expect(f('data/archived-checksum/@style')).toBe('sha1');
      expect(sha1(archived), `${path} archived`).toBe(f('data/archived-checksum'));
      const extracted = readFileSync(join(x, path));
      expect(extracted.length, `${path} size`).toBe(Number(f('data/size')));
      expect(sha1(extracted), `${path} extracted`).toBe(f('data/extracted-checksum'));
    }
  });

  it('a byte flipped in the heap fails 7-Zip, bsdtar and the checksum', () => {
    const { b, heap, toc } = archive();
    const payloadAt = heap + Number(xpath(toc, 'string(//file[name="Payload"]/data/offset)'));
    b[payloadAt + 1000] = b[payloadAt + 1000]! ^ 0x01;
    const bad = join(work, 'flipped.pkg');
    writeFileSync(bad, b);
    expect(spawnSync('7zz', ['t', bad]).status).not.toBe(0);
    const out = join(work, 'flipped');
    mkdirSync(out);
    expect(spawnSync('bsdtar', ['-xf', bad, '-C', out]).status).not.toBe(0);
    const length = Number(xpath(toc, 'string(//file[name="Payload"]/data/length)'));
    expect(sha1(b.subarray(payloadAt, payloadAt + length))).not.toBe(xpath(toc, 'string(//file[name="Payload"]/data/archived-checksum)'));
  });
});

describe('Distribution and PackageInfo', () => {
  it('PackageInfo: identifier, the version of package.json, install-location /, auth root, both scripts', () => {
    const info = join(x, 'localsign.pkg', 'PackageInfo');
    expect(xpath(info, 'string(/pkg-info/@identifier)')).toBe('com.localsign.pkg');
    expect(xpath(info, 'string(/pkg-info/@version)')).toBe(VERSION);
    expect(xpath(info, 'string(/pkg-info/@install-location)')).toBe('/');
    expect(xpath(info, 'string(/pkg-info/@auth)')).toBe('root');
    expect(xpath(info, 'string(/pkg-info/scripts/preinstall/@file)')).toBe('./preinstall');
    expect(xpath(info, 'string(/pkg-info/scripts/postinstall/@file)')).toBe('./postinstall');
    expect(Number(xpath(info, 'string(/pkg-info/payload/@numberOfFiles)'))).toBe(payload.length);
  });

  it('Distribution: the component by its identifier and version, both architectures, the macOS the executables need', () => {
    const dist = join(x, 'Distribution');
    expect(xpath(dist, 'string(/installer-gui-script/pkg-ref[text()]/@id)')).toBe('com.localsign.pkg');
    expect(xpath(dist, 'string(/installer-gui-script/pkg-ref[text()]/@version)')).toBe(VERSION);
    expect(xpath(dist, 'string(/installer-gui-script/pkg-ref[text()])')).toBe('#localsign.pkg');
    expect(xpath(dist, 'string(//choice/pkg-ref/@id)')).toBe('com.localsign.pkg');
    expect(xpath(dist, 'string(/installer-gui-script/options/@hostArchitectures)').split(',').sort()).toEqual(['arm64', 'x86_64']);
    const minOs = xpath(dist, 'string(//allowed-os-versions/os-version/@min)');
    for (const arch of ['arm64', 'x86_64']) {
      const build = loadCommands(join(root, EXE), arch).find((c) => c.cmd === 'LC_BUILD_VERSION')!;
      expect(build.fields.minos, arch).toBe(minOs);
    }
  });
});

describe('the Payload', () => {
  it('is a gzip of an odc cpio archive, which GNU cpio lists as bsdtar does', () => {
    const file = join(x, 'localsign.pkg', 'Payload');
    expect(readFileSync(file).subarray(0, 2).toString('hex')).toBe('1f8b');
    const pipe = (command: string) => execFileSync('sh', ['-c', `gzip -dc "$1" | ${command}`, 'sh', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(pipe('head -c 6')).toBe('070707'); // odc's magic (newc would be 070701)
    expect(pipe('cpio -it --quiet').split('\n').filter(Boolean)).toEqual(payload.map((e) => e.path));
  });

  it('root-owned, nothing group- or world-writable, no setuid, no AppleDouble, every parent listed before its children', () => {
    expect(payload[0]!.path).toBe('.');
    const seen = new Set<string>();
    for (const e of payload) {
      expect([`${e.uid}:${e.gid}`], e.path).toContain(e.gid === 80 ? '0:80' : '0:0');
      expect(e.mode & 0o022, e.path).toBe(0);
      expect(e.mode & 0o7000, e.path).toBe(0);
      expect(e.path.split('/').some((p) => p.startsWith('._') || p === '__MACOSX' || p === '.DS_Store'), e.path).toBe(false);
      if (e.path !== '.') expect(seen.has(e.path.slice(0, e.path.lastIndexOf('/'))), `${e.path}'s parent`).toBe(true);
      seen.add(e.path);
    }
  });

  it('installs the executable, localsign on PATH, the chip bridge for both CPUs, the uninstall command and the LaunchDaemon', () => {
    const by = new Map(payload.map((e) => [e.path, e]));
    expect(by.get(EXE)).toMatchObject({ type: 'file', mode: 0o755 });
    expect(by.get('./usr/local/bin/localsign')).toMatchObject({ type: 'link', link: '../lib/localsign/localsign' });
    expect(by.get('./usr/local/lib/localsign/uninstall')).toMatchObject({ type: 'file', mode: 0o755 });
    // launchd loads a daemon's plist only when root owns it and no one else may write it.
    expect(by.get(PLIST)).toMatchObject({ type: 'file', mode: 0o644, uid: 0 });
    // koffi finds its prebuilt at src/koffi/../../../@koromix/koffi-<platform>-<arch> (its index.cjs).
    expect(by.get('./usr/local/lib/localsign/node_modules/koffi/src/koffi/index.cjs')?.type).toBe('file');
    for (const [arch, cpu] of [['arm64', 'ARM64'], ['x64', 'X86_64']] as const) {
      const node = `./usr/local/lib/localsign/node_modules/@koromix/koffi-darwin-${arch}/darwin_${arch}/koffi.node`;
      expect(by.get(node)?.type, node).toBe('file');
      // The bytes build:sea staged beside the executables (test/macos/executables.test.ts checks those).
      const staged = join(ROOT, 'dist', 'node_modules', '@koromix', `koffi-darwin-${arch}`, `darwin_${arch}`, 'koffi.node');
      expect(readFileSync(join(root, node)).equals(readFileSync(staged)), node).toBe(true);
      expect(machHeader(join(root, node)).cputype).toBe(cpu);
    }
    expect(payload.some((e) => e.path.endsWith('.sha256') || /\.(cc|hh|h)$/.test(e.path))).toBe(false);
  });

  it('the executable is universal: llvm-lipo finds both slices, each the signed executable of dist/', () => {
    const exe = join(root, EXE);
    expect(execFileSync(LIPO, ['-archs', exe], { encoding: 'utf8' }).trim().split(' ').sort()).toEqual(['arm64', 'x86_64']);
    expect(spawnSync(LIPO, [exe, '-verify_arch', 'arm64', 'x86_64']).status).toBe(0);
    for (const [arch, name] of [['arm64', 'arm64'], ['x86_64', 'x64']]) {
      const thin = join(work, `thin-${arch}`);
      execFileSync(LIPO, [exe, '-thin', arch!, '-output', thin]);
      expect(readFileSync(thin).equals(readFileSync(join(ROOT, 'dist', `localsign-darwin-${name}`))), arch).toBe(true);
    }
  });

  it('the launchd plist is the one `service install` writes; plistutil reads it; it runs the installed executable with serve', () => {
    const text = readFileSync(join(root, PLIST), 'utf8');
    const plan = planService({ platform: 'darwin', scope: 'system', exec: ['/usr/local/lib/localsign/localsign'], port: 8300, userHome: '/var/root', serviceFilePath: '/etc/localsign/service.json' });
    expect(`.${plan.definitionPath}`).toBe(PLIST);
    expect(text).toBe(plan.definition);
    const json = join(work, 'plist.json');
    const r = spawnSync('plistutil', ['-i', join(root, PLIST), '-o', join(work, 'plist.bin'), '-f', 'bin'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // Back from libplist's binary form, as launchd would hold it.
    const back = execFileSync('plistutil', ['-i', join(work, 'plist.bin'), '-o', '-', '-f', 'xml'], { encoding: 'utf8' });
    writeFileSync(json, back);
    expect(xpath(json, 'string(/plist/dict/key[.="Label"]/following-sibling::string[1])')).toBe(LAUNCHD_LABEL);
    const args = xpath(json, '/plist/dict/key[.="ProgramArguments"]/following-sibling::array[1]/string/text()').split('\n');
    expect(args).toEqual(['/usr/local/lib/localsign/localsign', 'serve']);
    expect(payload.find((e) => e.path === `.${args[0]}`)).toMatchObject({ type: 'file', mode: 0o755 });
  });
});

describe('the Bom', () => {
  it('lists exactly the Payload: paths, types, modes, owners, sizes and cksum checksums as bsdtar and cksum(1) read them', () => {
    const bom = readBom(readFileSync(join(x, 'localsign.pkg', 'Bom')));
    expect(bom.vars).toEqual(['BomInfo', 'Paths', 'HLIndex', 'VIndex', 'Size64']);
    expect(bom.declaredCount).toBe(payload.length);
    const typeBits = { dir: 0o040000, file: 0o100000, link: 0o120000 };
    const expected = payload.map((e) => {
      const at = join(root, e.path);
      const data = e.type === 'file' ? readFileSync(at) : e.type === 'link' ? Buffer.from(e.link, 'utf8') : null;
      if (e.type === 'file') expect(lstatSync(at).size).toBe(e.size);
      return { path: e.path, type: e.type, mode: typeBits[e.type] | e.mode, uid: e.uid, gid: e.gid, size: data ? data.length : 0, checksum: data ? cksum(data) : 0, link: e.link };
    });
    const sort = <T extends { path: string }>(l: T[]) => [...l].sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(sort(bom.paths)).toEqual(sort(expected));
  });
});

describe('the scripts', () => {
  it('preinstall and postinstall: mode 0755, a shell macOS has, LF line ends, parsed by sh -n, the ones PackageInfo declares', () => {
    const scripts = bsdtarList(join(x, 'localsign.pkg', 'Scripts'));
    expect(scripts.map((s) => s.path)).toEqual(['.', './preinstall', './postinstall']);
    const dir = join(work, 'scripts');
    mkdirSync(dir);
    execFileSync('bsdtar', ['-xf', join(x, 'localsign.pkg', 'Scripts'), '-C', dir]);
    for (const s of scripts.slice(1)) {
      expect(s).toMatchObject({ type: 'file', mode: 0o755, uid: 0, gid: 0 });
      const text = readFileSync(join(dir, s.path), 'utf8');
      expect(text.split('\n')[0]).toMatch(/^#!\/bin\/(sh|bash|zsh)$/);
      expect(text).not.toContain('\r');
      const parsed = spawnSync('sh', ['-n', join(dir, s.path)], { encoding: 'utf8' });
      expect(parsed.status, parsed.stderr).toBe(0);
      expect(text).toBe(readFileSync(join(ROOT, 'installers', 'macos', 'scripts', s.path), 'utf8'));
    }
    expect(readdirSync(dir).sort()).toEqual(['postinstall', 'preinstall']);
  });
});
