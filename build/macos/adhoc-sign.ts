/**
 * An ad-hoc code signature for a thin 64-bit Mach-O executable, the one `codesign --sign -`
 * writes: Apple silicon runs no code without a signature, and postject's injection leaves none.
 * It proves integrity only (no identity, no hardened runtime); a Mac re-signs with a Developer ID
 * for distribution (installers/macos/build-pkg.sh).
 *
 * Layout per xnu's osfmk/kern/cs_blobs.h: an embedded-signature SuperBlob (CSMAGIC_EMBEDDED_SIGNATURE)
 * indexing a CodeDirectory (CSSLOT_CODEDIRECTORY), an empty requirements set (CSSLOT_REQUIREMENTS)
 * and an empty CMS wrapper (CSSLOT_SIGNATURESLOT). All big-endian. The CodeDirectory is version
 * 0x20400 (with the executable-segment fields), flag CS_ADHOC, SHA-256 of every 4 KiB page of the
 * file up to the signature (codeLimit), and two special slots before the code slots: -1 the
 * Info.plist (none: zeros), -2 the requirements blob's hash. The signature goes at the end of
 * __LINKEDIT, 16-byte aligned, named by a new LC_CODE_SIGNATURE; __LINKEDIT grows to cover it.
 */
import { createHash } from 'node:crypto';
import { LC_CODE_SIGNATURE, MACH_HEADER_64_SIZE, MH_EXECUTE, readMachO, segment, segmentPageSize } from './macho';

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSMAGIC_REQUIREMENTS = 0xfade0c01;
const CSMAGIC_BLOBWRAPPER = 0xfade0b01;
const CSSLOT_CODEDIRECTORY = 0;
const CSSLOT_REQUIREMENTS = 2;
const CSSLOT_SIGNATURESLOT = 0x10000;
const CS_ADHOC = 0x2;
const CS_HASHTYPE_SHA256 = 2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CD_VERSION = 0x20400;
/** The CodeDirectory's fixed fields up to execSegFlags (cs_blobs.h, version 0x20400). */
const CD_HEADER_SIZE = 88;
const HASH_SIZE = 32;
const PAGE_SHIFT = 12;
const PAGE = 1 << PAGE_SHIFT;
const SPECIAL_SLOTS = 2;

const align = (n: number, to: number) => Math.ceil(n / to) * to;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

/** The empty requirements set and CMS wrapper of an ad-hoc signature. */
const requirementsBlob = () => Buffer.from([...u32(CSMAGIC_REQUIREMENTS), ...u32(12), ...u32(0)]);
const cmsBlob = () => Buffer.from([...u32(CSMAGIC_BLOBWRAPPER), ...u32(8)]);

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** The signed file: `macho` with LC_CODE_SIGNATURE added and the signature appended. */
export function adhocSign(macho: Buffer, identifier: string): Buffer {
  const m = readMachO(macho);
  if (m.commands.some((c) => c.cmd === LC_CODE_SIGNATURE)) throw new Error('the file is signed already: remove its signature first (macho-unsign)');
  const linkedit = segment(m, '__LINKEDIT');
  const last = m.segments.reduce((a, s) => (s.fileoff + s.filesize > a.fileoff + a.filesize ? s : a));
  if (last !== linkedit || linkedit.fileoff + linkedit.filesize !== macho.length) {
    throw new Error('__LINKEDIT must be the last segment and end at the end of the file (dyld refuses anything after it)');
  }
  const firstSection = Math.min(...m.segments.flatMap((s) => s.sectionOffsets.filter((o) => o > 0)));
  const commandsEnd = MACH_HEADER_64_SIZE + m.sizeofcmds;
  if (commandsEnd + 16 > firstSection) throw new Error(`no room for LC_CODE_SIGNATURE: the load commands end at ${commandsEnd}, the first section starts at ${firstSection}`);

  const ident = Buffer.from(`${identifier}\0`, 'utf8');
  const codeLimit = align(macho.length, 16);
  const nCodeSlots = Math.ceil(codeLimit / PAGE);
  const hashOffset = CD_HEADER_SIZE + ident.length + SPECIAL_SLOTS * HASH_SIZE;
  const cdLength = hashOffset + nCodeSlots * HASH_SIZE;
  const requirements = requirementsBlob();
  const cms = cmsBlob();
  const superHeader = 12 + 3 * 8;
  const superLength = superHeader + cdLength + requirements.length + cms.length;
  const dataSize = align(superLength, 16);

  const out = Buffer.alloc(codeLimit + dataSize);
  macho.copy(out);
  // LC_CODE_SIGNATURE (linkedit_data_command) after the last load command.
  out.writeUInt32LE(LC_CODE_SIGNATURE, commandsEnd);
  out.writeUInt32LE(16, commandsEnd + 4);
  out.writeUInt32LE(codeLimit, commandsEnd + 8);
  out.writeUInt32LE(dataSize, commandsEnd + 12);
  out.writeUInt32LE(m.ncmds + 1, 16);
  out.writeUInt32LE(m.sizeofcmds + 16, 20);
  // __LINKEDIT covers the signature; its memory size stays a whole number of the CPU's pages.
  const filesize = codeLimit + dataSize - linkedit.fileoff;
  const vmsize = BigInt(align(filesize, segmentPageSize(m.cputype)));
  out.writeBigUInt64LE(vmsize > linkedit.vmsize ? vmsize : linkedit.vmsize, linkedit.commandOffset + 32);
  out.writeBigUInt64LE(BigInt(filesize), linkedit.commandOffset + 48);

  // Hashed after the header changes: the pages are what the kernel will read.
  const text = segment(m, '__TEXT');
  const cd = Buffer.alloc(cdLength);
  cd.writeUInt32BE(CSMAGIC_CODEDIRECTORY, 0);
  cd.writeUInt32BE(cdLength, 4);
  cd.writeUInt32BE(CD_VERSION, 8);
  cd.writeUInt32BE(CS_ADHOC, 12);
  cd.writeUInt32BE(hashOffset, 16);
  cd.writeUInt32BE(CD_HEADER_SIZE, 20);
  cd.writeUInt32BE(SPECIAL_SLOTS, 24);
  cd.writeUInt32BE(nCodeSlots, 28);
  cd.writeUInt32BE(codeLimit, 32);
  cd.writeUInt8(HASH_SIZE, 36);
  cd.writeUInt8(CS_HASHTYPE_SHA256, 37);
  cd.writeUInt8(0, 38); // platform: not a platform binary
  cd.writeUInt8(PAGE_SHIFT, 39);
  // spare2, scatterOffset, teamOffset, spare3, codeLimit64 (codeLimit fits 32 bits): zero.
  cd.writeBigUInt64BE(BigInt(text.fileoff), 64);
  cd.writeBigUInt64BE(BigInt(text.filesize), 72);
  cd.writeBigUInt64BE(BigInt(m.filetype === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0), 80);
  ident.copy(cd, CD_HEADER_SIZE);
  // Special slot -n sits n hashes before hashOffset; slot -1 (Info.plist) stays zero.
  sha256(requirements).copy(cd, hashOffset - CSSLOT_REQUIREMENTS * HASH_SIZE);
  for (let i = 0; i < nCodeSlots; i += 1) {
    sha256(out.subarray(i * PAGE, Math.min((i + 1) * PAGE, codeLimit))).copy(cd, hashOffset + i * HASH_SIZE);
  }

  const sig = out.subarray(codeLimit);
  sig.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  sig.writeUInt32BE(superLength, 4);
  sig.writeUInt32BE(3, 8);
  const blobs: [number, Buffer][] = [[CSSLOT_CODEDIRECTORY, cd], [CSSLOT_REQUIREMENTS, requirements], [CSSLOT_SIGNATURESLOT, cms]];
  let at = superHeader;
  blobs.forEach(([slot, blob], i) => {
    sig.writeUInt32BE(slot, 12 + i * 8);
    sig.writeUInt32BE(at, 16 + i * 8);
    blob.copy(sig, at);
    at += blob.length;
  });
  return out;
}
