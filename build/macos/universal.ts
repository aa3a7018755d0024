/**
 * A universal ("fat") binary: one file that macOS runs on Apple silicon and on Intel, each
 * picking its own slice. Layout per Apple's <mach-o/fat.h>: fat_header (FAT_MAGIC, nfat_arch),
 * then one fat_arch per slice (cputype, cpusubtype, offset, size, align as a power of two), all
 * big-endian; each slice starts on a page of its CPU. Slices are kept byte for byte, signatures
 * included.
 */
import { readMachO, segmentPageSize } from './macho';

const FAT_MAGIC = 0xcafebabe;
const FAT_ARCH_SIZE = 20;

export function universalBinary(slices: readonly Buffer[]): Buffer {
  const archs = slices.map((data) => {
    const m = readMachO(data);
    return { data, cputype: m.cputype, cpusubtype: m.cpusubtype, align: Math.log2(segmentPageSize(m.cputype)) };
  });
  if (new Set(archs.map((a) => a.cputype)).size !== archs.length) throw new Error('two slices of the same CPU type');
  // lipo's order: the smaller alignment first (x86_64 before arm64).
  archs.sort((a, b) => a.align - b.align || a.cputype - b.cputype);
  const parts: Buffer[] = [];
  const header = Buffer.alloc(8 + archs.length * FAT_ARCH_SIZE);
  header.writeUInt32BE(FAT_MAGIC, 0);
  header.writeUInt32BE(archs.length, 4);
  parts.push(header);
  let at = header.length;
  archs.forEach((a, i) => {
    const offset = Math.ceil(at / 2 ** a.align) * 2 ** a.align;
    if (offset + a.data.length > 0xffffffff) throw new Error('a universal binary of 4 GiB or more needs fat_arch_64');
    parts.push(Buffer.alloc(offset - at), a.data);
    const f = 8 + i * FAT_ARCH_SIZE;
    header.writeUInt32BE(a.cputype, f);
    header.writeUInt32BE(a.cpusubtype, f + 4);
    header.writeUInt32BE(offset, f + 8);
    header.writeUInt32BE(a.data.length, f + 12);
    header.writeUInt32BE(a.align, f + 16);
    at = offset + a.data.length;
  });
  return Buffer.concat(parts);
}
