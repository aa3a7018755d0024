import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChipError } from '../../../src/domain/errors';
import { binaryArchitecture, loadKoffi, loadPkcs11Module } from '../../../src/chip/loader';
import { tempDir } from '../../helpers/temp-dir';

const dir = tempDir('localsign-loader-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('binaryArchitecture', () => {
  it('reads the CPU from ELF, PE and Mach-O headers', () => {
    expect(binaryArchitecture('/usr/lib/softhsm/libsofthsm2.so')).toBe('x64');
    const elf = Buffer.alloc(64);
    elf.writeUInt32BE(0x7f454c46, 0);
    elf[4] = 2;
    elf[5] = 1;
    elf.writeUInt16LE(0xb7, 18);
    expect(binaryArchitecture(fileWith('arm64.so', elf))).toBe('arm64');
    const pe = Buffer.alloc(256);
    pe.writeUInt16LE(0x5a4d, 0); // "MZ"
    pe.writeUInt32LE(0x80, 0x3c); // e_lfanew
    pe.writeUInt32BE(0x50450000, 0x80); // "PE\0\0"
    pe.writeUInt16LE(0x8664, 0x84); // IMAGE_FILE_MACHINE_AMD64
    expect(binaryArchitecture(fileWith('vendor.dll', pe))).toBe('x64');
    const macho = Buffer.alloc(32);
    macho.writeUInt32LE(0xfeedfacf, 0);
    macho.writeUInt32LE(0x0100000c, 4); // CPU_TYPE_ARM64
    expect(binaryArchitecture(fileWith('vendor.dylib', macho))).toBe('arm64');
    expect(binaryArchitecture(fileWith('text.so', Buffer.from('not a library\n')))).toBeNull();
  });
});

describe('loadPkcs11Module', () => {
  it('loads koffi from the project and finds C_GetFunctionList in SoftHSM2', () => {
    expect(typeof loadKoffi().version).toBe('string');
    const module = loadPkcs11Module('/usr/lib/softhsm/libsofthsm2.so');
    expect(module.path).toBe('/usr/lib/softhsm/libsofthsm2.so');
    expect(typeof module.getFunctionList).toBe('function');
  });

  it('refuses a directory with a ChipError', () => {
    expect(() => loadPkcs11Module(dir)).toThrow(new ChipError(`cannot load PKCS#11 module ${dir}: not a file; is it built for ${process.arch}?`));
  });
});
