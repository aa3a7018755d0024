/**
 * A xar archive, the container of a flat .pkg (what productbuild writes and installer(8) reads).
 * Layout per the xar project's format (xar/include/xar.h.in and its toc): a 28-byte big-endian
 * header (magic "xar!", header size, version 1, the table of contents' compressed and
 * uncompressed lengths, checksum algorithm 1 = SHA-1), the table of contents as zlib-compressed
 * XML, then the heap. The heap starts with the SHA-1 of the compressed table of contents (the
 * toc's own <checksum>, offset 0, size 20); each file's data follows, with its archived and
 * extracted SHA-1 and its encoding: "application/x-gzip" (a zlib stream) or
 * "application/octet-stream" (stored).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

interface Owned {
  name: string;
  mode: number;
  mtime: number;
}
export interface XarFile extends Owned {
  type: 'file';
  data: Buffer;
  /** zlib-compress it in the heap (small XML and the Bom); a Payload is stored as it is, gzipped already. */
  compress: boolean;
}
export interface XarDirectory extends Owned {
  type: 'directory';
  children: XarNode[];
}
export type XarNode = XarFile | XarDirectory;

const HEADER_SIZE = 28;
const XAR_MAGIC = 0x78617221;
const CKSUM_SHA1 = 1;
const sha1 = (b: Buffer) => createHash('sha1').update(b).digest();
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function xarArchive(nodes: readonly XarNode[], creationTime: number): Buffer {
  const heap: Buffer[] = [Buffer.alloc(20)];
  let heapSize = 20;
  let nextId = 1;
  const toc = (n: XarNode, indent: string): string[] => {
    const inner = `${indent} `;
    const common = [
      `${inner}<name>${escapeXml(n.name)}</name>`,
      `${inner}<type>${n.type}</type>`,
      `${inner}<mode>0${n.mode.toString(8)}</mode>`,
      `${inner}<uid>0</uid>`,
      `${inner}<gid>0</gid>`,
      `${inner}<user>root</user>`,
      `${inner}<group>wheel</group>`,
      `${inner}<mtime>${isoTime(n.mtime)}</mtime>`,
    ];
    const open = `${indent}<file id="${nextId++}">`;
    if (n.type === 'directory') return [open, ...common, ...n.children.flatMap((c) => toc(c, inner)), `${indent}</file>`];
    const archived = n.compress ? deflateSync(n.data, { level: 9 }) : n.data;
    const offset = heapSize;
    heap.push(archived);
    heapSize += archived.length;
    return [
      open,
      ...common,
      `${inner}<data>`,
      `${inner} <length>${archived.length}</length>`,
      `${inner} <offset>${offset}</offset>`,
      `${inner} <size>${n.data.length}</size>`,
      `${inner} <encoding style="${n.compress ? 'application/x-gzip' : 'application/octet-stream'}"/>`,
      `${inner} <archived-checksum style="sha1">${sha1(archived).toString('hex')}</archived-checksum>`,
      `${inner} <extracted-checksum style="sha1">${sha1(n.data).toString('hex')}</extracted-checksum>`,
      `${inner}</data>`,
      `${indent}</file>`,
    ];
  };
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<xar>',
    ' <toc>',
    '  <checksum style="sha1">',
    '   <offset>0</offset>',
    '   <size>20</size>',
    '  </checksum>',
    `  <creation-time>${isoTime(creationTime)}</creation-time>`,
    ...nodes.flatMap((n) => toc(n, '  ')),
    ' </toc>',
    '</xar>',
    '',
  ].join('\n');
  const tocBytes = Buffer.from(xml, 'utf8');
  const compressed = deflateSync(tocBytes, { level: 9 });
  sha1(compressed).copy(heap[0]!);
  const header = Buffer.alloc(HEADER_SIZE);
  header.writeUInt32BE(XAR_MAGIC, 0);
  header.writeUInt16BE(HEADER_SIZE, 4);
  header.writeUInt16BE(1, 6);
  header.writeBigUInt64BE(BigInt(compressed.length), 8);
  header.writeBigUInt64BE(BigInt(tocBytes.length), 16);
  header.writeUInt32BE(CKSUM_SHA1, 24);
  return Buffer.concat([header, compressed, ...heap]);
}
