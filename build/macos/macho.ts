/**
 * A 64-bit thin Mach-O file read as far as signing and a universal binary need it: the header,
 * the load commands and the segments. Layouts per Apple's <mach-o/loader.h> (mach_header_64,
 * load_command, segment_command_64, section_64, linkedit_data_command); little-endian, as every
 * arm64 and x86_64 Mach-O is.
 */
export const MH_MAGIC_64 = 0xfeedfacf;
export const MH_EXECUTE = 0x2;
export const CPU_TYPE_X86_64 = 0x01000007;
export const CPU_TYPE_ARM64 = 0x0100000c;
export const LC_SEGMENT_64 = 0x19;
export const LC_CODE_SIGNATURE = 0x1d;
export const MACH_HEADER_64_SIZE = 32;

export interface Segment {
  name: string;
  /** Offset of its segment_command_64 in the file. */
  commandOffset: number;
  vmaddr: bigint;
  vmsize: bigint;
  fileoff: number;
  filesize: number;
  /** Offsets in the file of its sections' contents (0 for zero-fill sections). */
  sectionOffsets: number[];
}

export interface LoadCommand {
  cmd: number;
  cmdsize: number;
  offset: number;
}

export interface MachO {
  cputype: number;
  cpusubtype: number;
  filetype: number;
  ncmds: number;
  sizeofcmds: number;
  commands: LoadCommand[];
  segments: Segment[];
}

/** The page size the kernel maps a segment with: 16 KiB on Apple silicon, 4 KiB on Intel. */
export function segmentPageSize(cputype: number): number {
  if (cputype === CPU_TYPE_ARM64) return 0x4000;
  if (cputype === CPU_TYPE_X86_64) return 0x1000;
  throw new Error(`CPU type 0x${cputype.toString(16)} is neither arm64 nor x86_64`);
}

const name16 = (b: Buffer, at: number) => b.subarray(at, at + 16).toString('latin1').replace(/\0+$/, '');

export function readMachO(b: Buffer): MachO {
  if (b.length < MACH_HEADER_64_SIZE || b.readUInt32LE(0) !== MH_MAGIC_64) throw new Error('not a 64-bit little-endian Mach-O file (magic 0xfeedfacf)');
  const m: MachO = {
    cputype: b.readUInt32LE(4),
    cpusubtype: b.readUInt32LE(8),
    filetype: b.readUInt32LE(12),
    ncmds: b.readUInt32LE(16),
    sizeofcmds: b.readUInt32LE(20),
    commands: [],
    segments: [],
  };
  let at = MACH_HEADER_64_SIZE;
  const end = at + m.sizeofcmds;
  if (end > b.length) throw new Error('the load commands run past the end of the file');
  for (let i = 0; i < m.ncmds; i += 1) {
    const cmd = b.readUInt32LE(at);
    const cmdsize = b.readUInt32LE(at + 4);
    if (cmdsize < 8 || cmdsize % 8 !== 0 || at + cmdsize > end) throw new Error(`load command ${i} has a bad size (${cmdsize})`);
    m.commands.push({ cmd, cmdsize, offset: at });
    if (cmd === LC_SEGMENT_64) {
      const nsects = b.readUInt32LE(at + 64);
      const sectionOffsets = Array.from({ length: nsects }, (_, s) => b.readUInt32LE(at + 72 + s * 80 + 48));
      m.segments.push({
        name: name16(b, at + 8),
        commandOffset: at,
        vmaddr: b.readBigUInt64LE(at + 24),
        vmsize: b.readBigUInt64LE(at + 32),
        fileoff: Number(b.readBigUInt64LE(at + 40)),
        filesize: Number(b.readBigUInt64LE(at + 48)),
        sectionOffsets,
      });
    }
    at += cmdsize;
  }
  return m;
}

export function segment(m: MachO, name: string): Segment {
  const s = m.segments.find((x) => x.name === name);
  if (!s) throw new Error(`no ${name} segment`);
  return s;
}
