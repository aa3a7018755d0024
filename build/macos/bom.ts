/**
 * A package's bill of materials (the component's `Bom`): the paths the Payload installs, each with
 * its type, mode, owner, size and checksum; installd records it as what the package installed
 * (`pkgutil --files`, `lsbom`). Apple publishes no specification; the layout is the "BOMStore"
 * one that bomutils' mkbom writes and documents (src/bom.h), which macOS's installer reads:
 *
 * - a 512-byte header: "BOMStore", version 1, the number of blocks, where the block table (the
 *   "index") and the named variables are;
 * - the variables (count, then block number, name length, name): BomInfo, Paths, HLIndex,
 *   VIndex, Size64;
 * - the blocks, then the block table (count, then address and length of each; block 0 is null)
 *   and an empty free list.
 *
 * "Paths" is a B+ tree: leaves of up to 256 (PathInfo1, File) pairs, linked forward and back,
 * under one branch when there is more than one leaf. A File block is its parent's id and its name;
 * a PathInfo1 its own id and its PathInfo2: type, mode (with the type bits), uid, gid, mtime,
 * size, the cksum(1) checksum, and a link's target. Ids are given breadth-first from ".", children
 * in byte order of their names, so the tree is ordered by (parent id, name). All big-endian.
 */
import { posixCksum } from './cksum';
import { type PayloadEntry, checkPayloadTree, fullMode } from './payload-entry';

const HEADER_SIZE = 512;
const LEAF_CAPACITY = 256;
const TYPE = { file: 1, dir: 2, link: 3 } as const;

class Blocks {
  readonly list: Buffer[] = [Buffer.alloc(0)];
  add(b: Buffer): number {
    this.list.push(b);
    return this.list.length - 1;
  }
}

function be(...fields: [number, 1 | 2 | 4][]): Buffer {
  const b = Buffer.alloc(fields.reduce((n, [, w]) => n + w, 0));
  let at = 0;
  for (const [v, w] of fields) {
    if (w === 1) b.writeUInt8(v, at);
    else if (w === 2) b.writeUInt16BE(v, at);
    else b.writeUInt32BE(v >>> 0, at);
    at += w;
  }
  return b;
}

const tree = (child: number, pathCount: number, blockSize: number) => Buffer.concat([Buffer.from('tree'), be([1, 4], [child, 4], [blockSize, 4], [pathCount, 4], [0, 1])]);
const node = (isLeaf: boolean, pairs: [number, number][], forward = 0, backward = 0) => be([isLeaf ? 1 : 0, 2], [pairs.length, 2], [forward, 4], [backward, 4], ...pairs.flatMap(([a, b]): [number, 4][] => [[a, 4], [b, 4]]));

function pathInfo2(e: PayloadEntry): Buffer {
  const target = e.type === 'link' ? Buffer.from(`${e.data.toString('utf8')}\0`, 'utf8') : Buffer.alloc(0);
  const size = e.type === 'dir' ? 0 : e.data.length;
  const checksum = e.type === 'dir' ? 0 : posixCksum(e.data);
  // type, 1, architecture (3, as mkbom), mode, uid, gid, mtime, size, 1, checksum, link name length.
  const fixed = be([TYPE[e.type], 1], [1, 1], [3, 2], [fullMode(e), 2], [e.uid, 4], [e.gid, 4], [e.mtime, 4], [size, 4], [1, 1], [checksum, 4], [target.length, 4]);
  return Buffer.concat([fixed, target]);
}

/** Breadth-first from ".", children by name: the order the ids are given in. */
function breadthFirst(entries: readonly PayloadEntry[]): { entry: PayloadEntry; parentId: number; name: string }[] {
  const children = new Map<string, PayloadEntry[]>();
  for (const e of entries) {
    if (e.path === '.') continue;
    const parent = e.path.slice(0, e.path.lastIndexOf('/'));
    children.set(parent, [...(children.get(parent) ?? []), e]);
  }
  const order: { entry: PayloadEntry; parentId: number; name: string }[] = [{ entry: entries.find((e) => e.path === '.')!, parentId: 0, name: '.' }];
  for (let i = 0; i < order.length; i += 1) {
    const kids = [...(children.get(order[i]!.entry.path) ?? [])].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    for (const k of kids) order.push({ entry: k, parentId: i + 1, name: k.path.slice(k.path.lastIndexOf('/') + 1) });
  }
  return order;
}

export function bom(entries: readonly PayloadEntry[]): Buffer {
  checkPayloadTree(entries);
  const blocks = new Blocks();
  const vars: [string, number][] = [];
  const order = breadthFirst(entries);
  const num = order.length;
  vars.push(['BomInfo', blocks.add(be([1, 4], [num + 1, 4], [1, 4], [0, 4], [0, 4], [0, 4], [0, 4]))]);

  const pairs = order.map(({ entry, parentId, name }, i): [number, number] => {
    const info1 = blocks.add(be([i + 1, 4], [blocks.add(pathInfo2(entry)), 4]));
    const file = blocks.add(Buffer.concat([be([parentId, 4]), Buffer.from(`${name}\0`, 'utf8')]));
    return [info1, file];
  });
  const leaves: { id: number; block: Buffer; lastFile: number }[] = [];
  for (let i = 0; i < pairs.length; i += LEAF_CAPACITY) {
    const slice = pairs.slice(i, i + LEAF_CAPACITY);
    const block = node(true, slice, 0, leaves.at(-1)?.id ?? 0);
    const id = blocks.add(block);
    // The leaf before points forward to this one.
    leaves.at(-1)?.block.writeUInt32BE(id, 4);
    leaves.push({ id, block, lastFile: slice.at(-1)![1] });
  }
  const root = leaves.length === 1 ? leaves[0]!.id : blocks.add(node(false, leaves.map((l) => [l.id, l.lastFile])));
  vars.push(['Paths', blocks.add(tree(root, num, 4096))]);
  // No hard links, no per-file variants, no large-file sizes: empty trees, as mkbom writes them.
  const empty = () => blocks.add(node(true, []));
  vars.push(['HLIndex', blocks.add(tree(empty(), 0, 4096))]);
  vars.push(['VIndex', blocks.add(Buffer.concat([be([1, 4], [blocks.add(tree(empty(), 0, 128)), 4], [0, 4], [0, 1])]))]);
  vars.push(['Size64', blocks.add(tree(empty(), 0, 4096))]);

  const varsBlock = Buffer.concat([be([vars.length, 4]), ...vars.map(([name, id]) => Buffer.concat([be([id, 4], [name.length, 1]), Buffer.from(name, 'ascii')]))]);
  const dataStart = HEADER_SIZE + varsBlock.length;
  const addresses: number[] = [];
  let at = dataStart;
  for (const b of blocks.list) {
    addresses.push(b.length === 0 ? 0 : at);
    at += b.length;
  }
  const table = Buffer.concat([be([blocks.list.length, 4]), ...blocks.list.map((b, i) => be([addresses[i]!, 4], [b.length, 4]))]);
  const freeList = be([0, 4], [0, 4], [0, 4], [0, 4], [0, 4]);
  const header = Buffer.alloc(HEADER_SIZE);
  header.write('BOMStore', 0, 'ascii');
  header.writeUInt32BE(1, 8);
  header.writeUInt32BE(blocks.list.length - 1, 12);
  header.writeUInt32BE(at, 16);
  header.writeUInt32BE(table.length + freeList.length, 20);
  header.writeUInt32BE(HEADER_SIZE, 24);
  header.writeUInt32BE(varsBlock.length, 28);
  return Buffer.concat([header, varsBlock, ...blocks.list, table, freeList]);
}
