import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adhocSign } from '../../build/macos/adhoc-sign';
import { bom } from '../../build/macos/bom';
import { posixCksum } from '../../build/macos/cksum';
import { cpioOdc } from '../../build/macos/cpio-odc';
import { checkScript } from '../../build/macos/flat-pkg';
import type { PayloadEntry } from '../../build/macos/payload-entry';
import { universalBinary } from '../../build/macos/universal';
import { xarArchive } from '../../build/macos/xar';
import { readBom } from './helpers/bom-read';
import { bsdtarList } from './helpers/listing';
import { checkExecutable, LIPO, machHeader } from './helpers/macho-check';

/**
 * The writers of build/macos/, each on small inputs made here and read back by a tool we did not
 * write: cksum(1), bsdtar, GNU cpio, 7-Zip, llvm-lipo and llvm-otool; the Bom by the tests' own
 * reader (test/macos/helpers/bom-read.ts), Debian having no lsbom.
 */
const work = mkdtempSync(join(tmpdir(), 'localsign-writers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const T = 1_700_000_000;
const dir = (path: string, mode = 0o755): PayloadEntry => ({ path, type: 'dir', mode, uid: 0, gid: 0, mtime: T, data: Buffer.alloc(0) });
const file = (path: string, data: Buffer, mode = 0o644, uid = 0, gid = 0): PayloadEntry => ({ path, type: 'file', mode, uid, gid, mtime: T, data });
const link = (path: string, target: string): PayloadEntry => ({ path, type: 'link', mode: 0o755, uid: 0, gid: 0, mtime: T, data: Buffer.from(target) });
const cksum = (input: Buffer) => Number(execFileSync('cksum', { input, encoding: 'utf8' }).split(' ')[0]);

/** cksum(1) of many buffers in one run: each written to a file, one line per file. */
function cksums(data: Buffer[]): number[] {
  const d = mkdtempSync(join(work, 'ck-'));
  const files = data.map((b, i) => {
    writeFileSync(join(d, String(i)), b);
    return join(d, String(i));
  });
  return execFileSync('cksum', files, { encoding: 'utf8' }).trim().split('\n').map((l) => Number(l.split(' ')[0]));
}

describe('cksum', () => {
  it.each([0, 1, 3, 255, 256, 257, 65_539, 1_000_003])('matches cksum(1) on %i bytes', (n) => {
    const data = randomBytes(n);
    expect(posixCksum(data)).toBe(cksum(data));
  });
});

describe('odc cpio', () => {
  const entries = [
    dir('.'),
    dir('./a'),
    file('./a/plain', Buffer.from('hello\n')),
    file('./a/tool', randomBytes(70_001), 0o755),
    file('./a/empty', Buffer.alloc(0)),
    file('./a/owned by 501:20 é', Buffer.from('x'), 0o600, 501, 20),
    link('./a/to-tool', 'tool'),
  ];
  const archive = cpioOdc(entries);

  it('bsdtar lists every entry with its type, mode, owner, size and link target', () => {
    writeFileSync(join(work, 'a.cpio'), archive);
    expect(archive.toString('latin1', 0, 6)).toBe('070707');
    expect(bsdtarList(join(work, 'a.cpio'))).toEqual(
      entries.map((e) => ({ path: e.path, type: e.type, mode: e.mode, uid: e.uid, gid: e.gid, size: e.type === 'dir' ? 0 : e.data.length, link: e.type === 'link' ? e.data.toString() : '' })),
    );
  });

  it('GNU cpio extracts the same bytes and link', () => {
    const out = join(work, 'cpio-out');
    mkdirSync(out);
    execFileSync('cpio', ['-id', '--quiet', '--no-absolute-filenames'], { cwd: out, input: archive });
    for (const e of entries.filter((x) => x.type === 'file')) expect(readFileSync(join(out, e.path)).equals(e.data), e.path).toBe(true);
    expect(readlinkSync(join(out, 'a', 'to-tool'))).toBe('tool');
  });

  it('refuses a value its fixed-width fields cannot hold', () => {
    expect(() => cpioOdc([dir('.'), file('./x', Buffer.alloc(1), 0o644, 0o1000000)])).toThrow('uid 262144 does not fit 6 octal digits');
  });
});

describe('xar', () => {
  const nodes = () =>
    xarArchive(
      [
        { type: 'file', name: 'Distribution', data: Buffer.from('<x/>\n'.repeat(50)), compress: true, mode: 0o644, mtime: T },
        {
          type: 'directory',
          name: 'a & <b>.pkg',
          mode: 0o755,
          mtime: T,
          children: [
            { type: 'file', name: 'stored', data: randomBytes(100_000), compress: false, mode: 0o644, mtime: T },
            { type: 'file', name: 'empty', data: Buffer.alloc(0), compress: true, mode: 0o644, mtime: T },
            { type: 'directory', name: 'deeper', mode: 0o755, mtime: T, children: [{ type: 'file', name: 'zipped', data: Buffer.from('z'.repeat(10_000)), compress: true, mode: 0o600, mtime: T }] },
          ],
        },
      ],
      T,
    );

  it('bsdtar extracts every file byte for byte; 7-Zip tests every checksum', () => {
    const archive = nodes();
    const path = join(work, 'a.xar');
    writeFileSync(path, archive);
    expect(bsdtarList(path).map((e) => `${e.type} ${e.path} ${e.mode.toString(8)}`)).toEqual([
      'file Distribution 644',
      'dir a & <b>.pkg 755',
      'file a & <b>.pkg/stored 644',
      'file a & <b>.pkg/empty 644',
      'dir a & <b>.pkg/deeper 755',
      'file a & <b>.pkg/deeper/zipped 600',
    ]);
    const out = join(work, 'xar-out');
    mkdirSync(out);
    execFileSync('bsdtar', ['-xf', path, '-C', out]);
    expect(readFileSync(join(out, 'a & <b>.pkg', 'deeper', 'zipped'), 'utf8')).toBe('z'.repeat(10_000));
    expect(readFileSync(join(out, 'Distribution'), 'utf8')).toBe('<x/>\n'.repeat(50));
    const tested = spawnSync('7zz', ['t', path], { encoding: 'utf8' });
    expect(tested.stdout).toMatch(/^Everything is Ok$/m);
  });

  it('a changed table of contents fails its own checksum in bsdtar (7-Zip does not check that one)', () => {
    const archive = nodes();
    // The heap's first 20 bytes are the SHA-1 of the compressed table of contents.
    const heap = 28 + Number(archive.readBigUInt64BE(8));
    archive[heap] = archive[heap]! ^ 0xff;
    const path = join(work, 'bad-toc.xar');
    writeFileSync(path, archive);
    const listed = spawnSync('bsdtar', ['-tf', path], { encoding: 'utf8' });
    expect(listed.status).not.toBe(0);
    expect(listed.stderr).toContain('Sumcheck error');
  });
});

describe('Bom', () => {
  // Over 256 paths: several leaves under a branch, as a large payload makes.
  const many = [dir('.'), dir('./d'), ...Array.from({ length: 600 }, (_, i) => file(`./d/f${String(i).padStart(3, '0')}`, Buffer.from(`file ${i}\n`), i % 2 ? 0o755 : 0o644)), link('./l', 'd/f001')];
  const expected = (entries: PayloadEntry[]) => {
    const sums = cksums(entries.map((e) => e.data));
    return entries.map((e, i) => ({
      path: e.path,
      type: e.type,
      mode: (e.type === 'dir' ? 0o040000 : e.type === 'link' ? 0o120000 : 0o100000) | e.mode,
      uid: e.uid,
      gid: e.gid,
      size: e.type === 'dir' ? 0 : e.data.length,
      checksum: e.type === 'dir' ? 0 : sums[i],
      link: e.type === 'link' ? e.data.toString() : '',
    }));
  };
  const sorted = <T extends { path: string }>(l: T[]) => [...l].sort((a, b) => (a.path < b.path ? -1 : 1));

  it('lists every path, across leaves, with its mode, owner, size and cksum(1) checksum', () => {
    const read = readBom(bom(many));
    expect(read.declaredCount).toBe(many.length);
    expect(sorted(read.paths)).toEqual(sorted(expected(many)));
  });

  it('a changed mode, owner or file is seen by the comparison', () => {
    const changed = many.map((e) => (e.path === './d/f010' ? { ...e, mode: 0o600 } : e.path === './d/f020' ? { ...e, data: Buffer.from('other') } : e));
    const read = sorted(readBom(bom(changed)).paths);
    const want = sorted(expected(many));
    expect(read.filter((p, i) => JSON.stringify(p) !== JSON.stringify(want[i])).map((p) => p.path)).toEqual(['./d/f010', './d/f020']);
  });

  it('refuses a path whose parent is not listed, or a path twice', () => {
    expect(() => bom([dir('.'), file('./x/y', Buffer.alloc(0))])).toThrow('./x/y: its parent ./x is not listed before it as a directory');
    expect(() => bom([dir('.'), dir('./x'), dir('./x')])).toThrow('./x is listed twice');
  });
});

/** A small thin Mach-O executable: __PAGEZERO, __TEXT with one section, __LINKEDIT; laid out as ld64 does. */
function tinyMachO(cpu: 'arm64' | 'x86_64'): Buffer {
  const page = cpu === 'arm64' ? 0x4000 : 0x1000;
  const cputype = cpu === 'arm64' ? 0x0100000c : 0x01000007;
  const cpusubtype = cpu === 'arm64' ? 0 : 3;
  const linkedit = 100;
  const b = Buffer.alloc(2 * page + linkedit);
  randomBytes(page).copy(b, page);
  randomBytes(linkedit).copy(b, 2 * page);
  const seg = (at: number, name: string, vmaddr: bigint, vmsize: bigint, fileoff: number, filesize: number, prot: number, nsects: number) => {
    b.writeUInt32LE(0x19, at);
    b.writeUInt32LE(72 + nsects * 80, at + 4);
    b.write(name, at + 8, 'latin1');
    b.writeBigUInt64LE(vmaddr, at + 24);
    b.writeBigUInt64LE(vmsize, at + 32);
    b.writeBigUInt64LE(BigInt(fileoff), at + 40);
    b.writeBigUInt64LE(BigInt(filesize), at + 48);
    b.writeUInt32LE(prot, at + 56);
    b.writeUInt32LE(prot, at + 60);
    b.writeUInt32LE(nsects, at + 64);
    return at + 72;
  };
  const base = 0x100000000n;
  let at = 32;
  at = seg(at, '__PAGEZERO', 0n, base, 0, 0, 0, 0);
  const section = seg(at, '__TEXT', base, BigInt(2 * page), 0, 2 * page, 5, 1);
  b.write('__text', section, 'latin1');
  b.write('__TEXT', section + 16, 'latin1');
  b.writeBigUInt64LE(base + BigInt(page), section + 32);
  b.writeBigUInt64LE(BigInt(page), section + 40);
  b.writeUInt32LE(page, section + 48);
  b.writeUInt32LE(2, section + 52);
  b.writeUInt32LE(0x80000400, section + 64);
  at = section + 80;
  at = seg(at, '__LINKEDIT', base + BigInt(2 * page), BigInt(page), 2 * page, linkedit, 1, 0);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(cputype, 4);
  b.writeUInt32LE(cpusubtype, 8);
  b.writeUInt32LE(2, 12); // MH_EXECUTE
  b.writeUInt32LE(3, 16);
  b.writeUInt32LE(at - 32, 20);
  b.writeUInt32LE(0x00200085, 24); // NOUNDEFS DYLDLINK TWOLEVEL PIE
  return b;
}

describe('ad-hoc signature', () => {
  it.each(['arm64', 'x86_64'] as const)('%s: llvm-otool reads the load commands, every hash verifies, __LINKEDIT ends with the signature', (cpu) => {
    const path = join(work, `tiny-${cpu}`);
    const unsigned = tinyMachO(cpu);
    writeFileSync(path, adhocSign(unsigned, 'localsign'));
    const r = checkExecutable(path, readFileSync(path), { adhoc: true });
    expect(r.problems).toEqual([]);
    expect(r.cputype).toBe(cpu === 'arm64' ? 'ARM64' : 'X86_64');
    // Every page up to the signature, which starts on the next 16-byte boundary.
    expect(r.signature).toMatchObject({ identifier: 'localsign', codeSlots: Math.ceil(Math.ceil(unsigned.length / 16) * 16 / 4096) });
  });

  it('is the same bytes for the same input', () => {
    const m = tinyMachO('arm64');
    expect(adhocSign(m, 'localsign').equals(adhocSign(m, 'localsign'))).toBe(true);
  });

  it('refuses a signed file, a file with something after __LINKEDIT, and one without room for the load command', () => {
    const m = tinyMachO('arm64');
    expect(() => adhocSign(adhocSign(m, 'a'), 'a')).toThrow('the file is signed already');
    expect(() => adhocSign(Buffer.concat([m, Buffer.alloc(16)]), 'a')).toThrow('__LINKEDIT must be the last segment and end at the end of the file');
    const full = Buffer.from(m);
    full.writeUInt32LE(0x4000 - 32 - 8, 20); // the load commands said to fill the space before __text
    expect(() => adhocSign(full, 'a')).toThrow(/no room for LC_CODE_SIGNATURE|bad size/);
  });
});

describe('universal binary', () => {
  it('llvm-lipo finds both slices, page-aligned, each byte for byte', () => {
    const arm = adhocSign(tinyMachO('arm64'), 'localsign');
    const intel = adhocSign(tinyMachO('x86_64'), 'localsign');
    const path = join(work, 'fat');
    writeFileSync(path, universalBinary([arm, intel]));
    expect(execFileSync(LIPO, ['-archs', path], { encoding: 'utf8' }).trim()).toBe('x86_64 arm64');
    const headers = execFileSync('llvm-objdump-14', ['--macho', '--universal-headers', path], { encoding: 'utf8' });
    expect([...headers.matchAll(/offset (\d+)\n.*\n\s+align 2\^(\d+)/g)].map((m) => Number(m[1]) % 2 ** Number(m[2]))).toEqual([0, 0]);
    for (const [arch, slice] of [['arm64', arm], ['x86_64', intel]] as const) {
      execFileSync(LIPO, [path, '-thin', arch, '-output', join(work, `thin-${arch}`)]);
      expect(readFileSync(join(work, `thin-${arch}`)).equals(slice), arch).toBe(true);
      expect(machHeader(path, arch).cputype).toBe(arch === 'arm64' ? 'ARM64' : 'X86_64');
    }
  });

  it('refuses two slices of one CPU', () => {
    const arm = tinyMachO('arm64');
    expect(() => universalBinary([arm, arm])).toThrow('two slices of the same CPU type');
  });
});

describe('package scripts', () => {
  it('refuses a script without a shell macOS has, or with CR line ends', () => {
    expect(() => checkScript({ name: 'postinstall', text: '#!/usr/bin/env node\n' })).toThrow('postinstall must start with one of #!/bin/sh');
    expect(() => checkScript({ name: 'preinstall', text: '#!/bin/sh\r\nexit 0\r\n' })).toThrow('preinstall has CR line ends');
    expect(() => checkScript({ name: 'preinstall', text: '#!/bin/sh\nexit 0\n' })).not.toThrow();
  });
});
