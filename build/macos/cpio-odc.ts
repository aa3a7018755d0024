/**
 * A cpio archive in the portable "odc" format (POSIX.1-1988 / SUSv2 pax "cpio interchange
 * format", magic 070707): a package's Payload and Scripts are this, gzipped. Each entry is a
 * 76-byte header of fixed-width octal fields (dev, ino, mode, uid, gid, nlink, rdev: 6 digits;
 * mtime: 11; namesize: 6; filesize: 11), the NUL-terminated name, then the data, unpadded. The
 * archive ends with an entry named TRAILER!!!.
 */
import { type PayloadEntry, fullMode } from './payload-entry';

function octal(n: number, width: number, what: string): string {
  const s = n.toString(8);
  if (s.length > width) throw new Error(`${what} ${n} does not fit ${width} octal digits`);
  return s.padStart(width, '0');
}

function header(fields: { ino: number; mode: number; uid: number; gid: number; nlink: number; mtime: number; name: Buffer; size: number }): Buffer {
  const text =
    '070707' +
    octal(0, 6, 'dev') +
    octal(fields.ino, 6, 'inode') +
    octal(fields.mode, 6, 'mode') +
    octal(fields.uid, 6, 'uid') +
    octal(fields.gid, 6, 'gid') +
    octal(fields.nlink, 6, 'link count') +
    octal(0, 6, 'rdev') +
    octal(fields.mtime, 11, 'mtime') +
    octal(fields.name.length, 6, 'name size') +
    octal(fields.size, 11, 'file size');
  return Buffer.from(text, 'ascii');
}

/** The archive's bytes. Inode numbers are the entries' positions: distinct, so no reader sees hard links. */
export function cpioOdc(entries: readonly PayloadEntry[]): Buffer {
  const parts: Buffer[] = [];
  entries.forEach((e, i) => {
    const name = Buffer.from(`${e.path}\0`, 'utf8');
    const data = e.type === 'dir' ? Buffer.alloc(0) : e.data;
    parts.push(header({ ino: i + 1, mode: fullMode(e), uid: e.uid, gid: e.gid, nlink: e.type === 'dir' ? 2 : 1, mtime: e.mtime, name, size: data.length }), name, data);
  });
  const trailer = Buffer.from('TRAILER!!!\0', 'ascii');
  parts.push(header({ ino: 0, mode: 0, uid: 0, gid: 0, nlink: 1, mtime: 0, name: trailer, size: 0 }), trailer);
  return Buffer.concat(parts);
}
