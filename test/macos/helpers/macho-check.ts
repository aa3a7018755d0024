import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';

/**
 * A Mach-O executable checked as macOS checks it, with readers we did not write: LLVM's otool and
 * objdump (Debian's llvm-14) for the header, load commands, segments and sections; the code
 * signature's bytes are then read here, from the offsets otool gives, and every hash recomputed
 * with node:crypto. Nothing here imports build/macos/: the signer is checked, not reused.
 * Magic numbers and layouts: xnu's osfmk/kern/cs_blobs.h.
 */
export const OTOOL = 'llvm-otool-14';
export const OBJDUMP = 'llvm-objdump-14';
export const LIPO = 'llvm-lipo-14';

export interface OtoolCommand {
  cmd: string;
  fields: Record<string, string>;
  sections: Record<string, string>[];
}

/** `llvm-otool -l`: every load command with its fields, sections under their segment. */
export function loadCommands(file: string, arch?: string): OtoolCommand[] {
  const out = execFileSync(OTOOL, ['-l', ...(arch ? ['-arch', arch] : []), file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const commands: OtoolCommand[] = [];
  let section: Record<string, string> | null = null;
  for (const line of out.split('\n')) {
    if (/^Load command \d+$/.test(line.trim())) {
      commands.push({ cmd: '', fields: {}, sections: [] });
      section = null;
    } else if (line.trim() === 'Section' && commands.length > 0) {
      section = {};
      commands.at(-1)!.sections.push(section);
    } else {
      const m = /^\s*(\S+) (.*)$/.exec(line);
      const current = commands.at(-1);
      if (!m || !current) continue;
      const [, key, value] = m as unknown as [string, string, string];
      if (key === 'cmd' && section === null) current.cmd = value.trim();
      else (section ?? current.fields)[key] = value.trim();
    }
  }
  return commands;
}

/** otool prints hex with 0x, sizes in decimal. */
export const num = (v: string | undefined): number => {
  if (v === undefined) throw new Error('missing field');
  return Number(BigInt(v.split(' ')[0]!));
};

export interface SegmentView {
  name: string;
  vmaddr: number;
  vmsize: number;
  fileoff: number;
  filesize: number;
  maxprot: number;
  initprot: number;
  sections: Record<string, string>[];
}

export function segments(commands: OtoolCommand[]): SegmentView[] {
  return commands
    .filter((c) => c.cmd === 'LC_SEGMENT_64')
    .map((c) => ({
      name: c.fields.segname!,
      vmaddr: num(c.fields.vmaddr),
      vmsize: num(c.fields.vmsize),
      fileoff: num(c.fields.fileoff),
      filesize: num(c.fields.filesize),
      maxprot: num(c.fields.maxprot),
      initprot: num(c.fields.initprot),
      sections: c.sections,
    }));
}

/** `llvm-objdump --macho --private-header`: the CPU type by name (ARM64, X86_64) and the file type. */
export function machHeader(file: string, arch?: string): { cputype: string; filetype: string } {
  const out = execFileSync(OBJDUMP, ['--macho', '--private-header', ...(arch ? [`--arch=${arch}`] : []), file], { encoding: 'utf8' });
  const row = out.split('\n').find((l) => /^\s*MH_MAGIC_64\s/.test(l));
  if (!row) throw new Error(`no 64-bit Mach-O header in ${file}:\n${out}`);
  const cols = row.trim().split(/\s+/);
  return { cputype: cols[1]!, filetype: cols[4]! };
}

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSMAGIC_REQUIREMENTS = 0xfade0c01;
const CSMAGIC_BLOBWRAPPER = 0xfade0b01;
const CS_ADHOC = 0x2;
const CS_EXECSEG_MAIN_BINARY = 0x1;

export interface SignatureReport {
  problems: string[];
  identifier: string;
  flags: number;
  version: number;
  codeSlots: number;
  specialSlots: number;
  blobTypes: number[];
}

/**
 * The signature of a thin Mach-O, at LC_CODE_SIGNATURE's dataoff/datasize, checked as the kernel
 * does when it maps pages (cs_validate_codedirectory, then each page's hash on page-in): each
 * page of [0, codeLimit) hashed again, each special slot against its blob. `adhoc` also asks
 * for the layout `codesign --sign -` writes (version 0x20400, CS_ADHOC, __TEXT as the main
 * binary's executable segment, an empty requirements set and an empty CMS wrapper).
 */
export function checkSignature(bin: Buffer, cs: { dataoff: number; datasize: number }, text: { fileoff: number; filesize: number }, adhoc: boolean): SignatureReport {
  const problems: string[] = [];
  const report: SignatureReport = { problems, identifier: '', flags: 0, version: 0, codeSlots: 0, specialSlots: 0, blobTypes: [] };
  if (cs.dataoff + cs.datasize > bin.length) {
    problems.push('the signature runs past the end of the file');
    return report;
  }
  const sig = bin.subarray(cs.dataoff, cs.dataoff + cs.datasize);
  if (sig.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE) {
    problems.push(`SuperBlob magic 0x${sig.readUInt32BE(0).toString(16)}`);
    return report;
  }
  const superLength = sig.readUInt32BE(4);
  if (superLength > cs.datasize) problems.push(`SuperBlob length ${superLength} > datasize ${cs.datasize}`);
  const count = sig.readUInt32BE(8);
  const blobs = new Map<number, Buffer>();
  for (let i = 0; i < count; i += 1) {
    const type = sig.readUInt32BE(12 + i * 8);
    const offset = sig.readUInt32BE(16 + i * 8);
    const length = sig.readUInt32BE(offset + 4);
    if (offset + length > superLength) problems.push(`blob ${type} runs past the SuperBlob`);
    blobs.set(type, sig.subarray(offset, offset + length));
  }
  report.blobTypes = [...blobs.keys()];
  const cd = blobs.get(0);
  if (!cd || cd.readUInt32BE(0) !== CSMAGIC_CODEDIRECTORY) {
    problems.push('no CodeDirectory in slot 0');
    return report;
  }
  report.version = cd.readUInt32BE(8);
  report.flags = cd.readUInt32BE(12);
  const hashOffset = cd.readUInt32BE(16);
  const identOffset = cd.readUInt32BE(20);
  report.specialSlots = cd.readUInt32BE(24);
  report.codeSlots = cd.readUInt32BE(28);
  const codeLimit = cd.readUInt32BE(32);
  const hashSize = cd.readUInt8(36);
  const hashType = cd.readUInt8(37);
  const pageSize = 2 ** cd.readUInt8(39);
  report.identifier = cd.subarray(identOffset, cd.indexOf(0, identOffset)).toString('utf8');
  if (hashType !== 2 || hashSize !== 32) problems.push(`hash type ${hashType} size ${hashSize}, expected SHA-256 (2, 32)`);
  if (codeLimit !== cs.dataoff) problems.push(`codeLimit ${codeLimit} is not the signature's offset ${cs.dataoff}`);
  if (report.codeSlots !== Math.ceil(codeLimit / pageSize)) problems.push(`${report.codeSlots} code slots for ${codeLimit} bytes in pages of ${pageSize}`);
  let badPages = 0;
  for (let i = 0; i < report.codeSlots; i += 1) {
    const page = bin.subarray(i * pageSize, Math.min((i + 1) * pageSize, codeLimit));
    const want = cd.subarray(hashOffset + i * hashSize, hashOffset + (i + 1) * hashSize);
    if (!createHash('sha256').update(page).digest().equals(want)) {
      if (badPages < 3) problems.push(`page ${i} (bytes ${i * pageSize}..) does not match its hash`);
      badPages += 1;
    }
  }
  if (badPages > 3) problems.push(`${badPages} pages in all do not match their hashes`);
  for (let n = 1; n <= report.specialSlots; n += 1) {
    const blob = blobs.get(n);
    const want = blob ? createHash('sha256').update(blob).digest() : Buffer.alloc(hashSize);
    if (!cd.subarray(hashOffset - n * hashSize, hashOffset - (n - 1) * hashSize).equals(want)) problems.push(`special slot -${n} does not match ${blob ? `blob ${n}` : 'an absent blob (zeros)'}`);
  }
  for (const type of blobs.keys()) {
    if (type > 0 && type < 0x1000 && type > report.specialSlots) problems.push(`blob ${type} has no special slot`);
  }
  if (adhoc) {
    if (report.version < 0x20400) problems.push(`CodeDirectory version 0x${report.version.toString(16)} has no executable-segment fields`);
    if ((report.flags & CS_ADHOC) === 0) problems.push('CS_ADHOC is not set');
    if (Number(cd.readBigUInt64BE(64)) !== text.fileoff || Number(cd.readBigUInt64BE(72)) !== text.filesize) problems.push('execSegBase/execSegLimit are not __TEXT');
    if ((Number(cd.readBigUInt64BE(80)) & CS_EXECSEG_MAIN_BINARY) === 0) problems.push('CS_EXECSEG_MAIN_BINARY is not set');
    const req = blobs.get(2);
    if (!req || req.readUInt32BE(0) !== CSMAGIC_REQUIREMENTS || req.readUInt32BE(8) !== 0) problems.push('no empty requirements set in slot 2');
    const cms = blobs.get(0x10000);
    if (!cms || cms.readUInt32BE(0) !== CSMAGIC_BLOBWRAPPER || cms.length !== 8) problems.push('no empty CMS wrapper in slot 0x10000');
    if (report.specialSlots !== 2) problems.push(`${report.specialSlots} special slots, expected 2 (Info.plist, requirements)`);
  }
  return report;
}

export interface ExecutableReport {
  cputype: string;
  problems: string[];
  signature: SignatureReport | null;
  segments: SegmentView[];
}

/**
 * Everything the kernel and dyld check before the first instruction, for a thin Mach-O file
 * (`file`, its bytes `bin`): the segments page-aligned for the CPU and inside the file, __LINKEDIT
 * last and holding every linkedit table, the signature at its end with nothing after it, 16-byte
 * aligned, and valid.
 */
export function checkExecutable(file: string, bin: Buffer, opts: { adhoc: boolean; arch?: string }): ExecutableReport {
  const problems: string[] = [];
  const { cputype } = machHeader(file, opts.arch);
  const cmds = loadCommands(file, opts.arch);
  const segs = segments(cmds);
  const page = cputype === 'ARM64' ? 0x4000 : 0x1000;
  for (const s of segs) {
    if (s.name === '__PAGEZERO') continue;
    if (s.fileoff % page || s.vmaddr % page || s.vmsize % page) problems.push(`${s.name} is not aligned to ${page}-byte pages`);
    if (s.fileoff + s.filesize > bin.length) problems.push(`${s.name} runs past the end of the file`);
    if (s.filesize > s.vmsize) problems.push(`${s.name}: filesize over vmsize`);
  }
  const linkedit = segs.find((s) => s.name === '__LINKEDIT');
  const text = segs.find((s) => s.name === '__TEXT');
  if (!linkedit || !text) return { cputype, problems: [...problems, 'no __TEXT or __LINKEDIT'], signature: null, segments: segs };
  if (segs.some((s) => s !== linkedit && s.fileoff + s.filesize > linkedit.fileoff)) problems.push('a segment lies after __LINKEDIT');
  const linkeditEnd = linkedit.fileoff + linkedit.filesize;
  if (linkeditEnd !== bin.length) problems.push(`__LINKEDIT ends at ${linkeditEnd}, the file at ${bin.length}`);
  const within = (what: string, off: number, size: number) => {
    if (size > 0 && (off < linkedit.fileoff || off + size > linkeditEnd)) problems.push(`${what} lies outside __LINKEDIT`);
  };
  for (const c of cmds) {
    const f = c.fields;
    if (c.cmd === 'LC_SYMTAB') {
      within('the symbol table', num(f.symoff), num(f.nsyms) * 16);
      within('the string table', num(f.stroff), num(f.strsize));
    } else if (c.cmd === 'LC_DYSYMTAB') {
      within('the indirect symbol table', num(f.indirectsymoff), num(f.nindirectsyms) * 4);
    } else if (c.cmd === 'LC_DYLD_INFO_ONLY' || c.cmd === 'LC_DYLD_INFO') {
      for (const k of ['rebase', 'bind', 'weak_bind', 'lazy_bind', 'export']) within(`dyld's ${k} info`, num(f[`${k}_off`]), num(f[`${k}_size`]));
    } else if (['LC_FUNCTION_STARTS', 'LC_DATA_IN_CODE', 'LC_DYLD_CHAINED_FIXUPS', 'LC_DYLD_EXPORTS_TRIE', 'LC_CODE_SIGNATURE'].includes(c.cmd)) {
      within(c.cmd, num(f.dataoff), num(f.datasize));
    }
  }
  const cs = cmds.filter((c) => c.cmd === 'LC_CODE_SIGNATURE');
  if (cs.length !== 1) return { cputype, problems: [...problems, cs.length === 0 ? 'not signed: no LC_CODE_SIGNATURE' : 'more than one LC_CODE_SIGNATURE'], signature: null, segments: segs };
  const at = { dataoff: num(cs[0]!.fields.dataoff), datasize: num(cs[0]!.fields.datasize) };
  if (at.dataoff % 16) problems.push('the signature is not 16-byte aligned');
  if (at.dataoff + at.datasize !== linkeditEnd) problems.push('something lies after the signature in __LINKEDIT');
  const signature = checkSignature(bin, at, text, opts.adhoc);
  return { cputype, problems: [...problems, ...signature.problems], signature, segments: segs };
}
