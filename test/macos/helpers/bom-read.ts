/**
 * A reader of a package's Bom, written for the tests apart from build/macos/bom.ts (no code in
 * common): Debian has no lsbom. It follows the block table and the named variables to the "Paths"
 * tree, down its leftmost branch to the first leaf, then along the leaves' forward links; each
 * pair names a PathInfo1 (id, PathInfo2) and a File (parent id, name). Layout as bomutils
 * documents it (src/bom.h), all big-endian.
 */
import type { Listed } from './listing';

/** A Bom entry: what bsdtar lists of the same path (`Listed`), and the file's POSIX cksum. */
export interface BomPath extends Listed {
  checksum: number;
}

export function readBom(b: Buffer): { paths: BomPath[]; vars: string[]; declaredCount: number } {
  if (b.toString('latin1', 0, 8) !== 'BOMStore' || b.readUInt32BE(8) !== 1) throw new Error('not a BOMStore version 1');
  const index = b.readUInt32BE(16);
  const blockCount = b.readUInt32BE(index);
  const block = (i: number) => {
    if (i <= 0 || i >= blockCount) throw new Error(`block ${i} out of range`);
    const address = b.readUInt32BE(index + 4 + i * 8);
    return b.subarray(address, address + b.readUInt32BE(index + 8 + i * 8));
  };
  const vars = new Map<string, number>();
  let at = b.readUInt32BE(24);
  const varCount = b.readUInt32BE(at);
  at += 4;
  for (let i = 0; i < varCount; i += 1) {
    const id = b.readUInt32BE(at);
    const len = b.readUInt8(at + 4);
    vars.set(b.toString('latin1', at + 5, at + 5 + len), id);
    at += 5 + len;
  }
  const tree = block(vars.get('Paths') ?? 0);
  if (tree.toString('latin1', 0, 4) !== 'tree') throw new Error('Paths is not a tree');
  const declaredCount = tree.readUInt32BE(16);
  let node = block(tree.readUInt32BE(8));
  while (node.readUInt16BE(0) === 0) node = block(node.readUInt32BE(12));
  const byId = new Map<number, { parent: number; name: string; info: Buffer }>();
  for (;;) {
    const count = node.readUInt16BE(2);
    for (let i = 0; i < count; i += 1) {
      const info1 = block(node.readUInt32BE(12 + i * 8));
      const file = block(node.readUInt32BE(16 + i * 8));
      byId.set(info1.readUInt32BE(0), { parent: file.readUInt32BE(0), name: file.toString('utf8', 4, file.indexOf(0, 4)), info: block(info1.readUInt32BE(4)) });
    }
    const forward = node.readUInt32BE(4);
    if (forward === 0) break;
    node = block(forward);
  }
  const pathOf = (id: number): string => {
    const e = byId.get(id)!;
    return e.parent === 0 ? e.name : `${pathOf(e.parent)}/${e.name}`;
  };
  const paths = [...byId.entries()].map(([id, { info }]): BomPath => {
    const linkLength = info.readUInt32BE(27);
    return {
      path: pathOf(id),
      type: ({ 1: 'file', 2: 'dir', 3: 'link' } as const)[info.readUInt8(0) as 1 | 2 | 3],
      mode: info.readUInt16BE(4),
      uid: info.readUInt32BE(6),
      gid: info.readUInt32BE(10),
      size: info.readUInt32BE(18),
      checksum: info.readUInt32BE(23),
      link: linkLength > 0 ? info.toString('utf8', 31, 31 + linkLength - 1) : '',
    };
  });
  return { paths, vars: [...vars.keys()], declaredCount };
}
