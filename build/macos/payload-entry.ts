/**
 * One path of a package's Payload, as the cpio archive and the Bom both describe it: the two
 * must agree (installd lays out the cpio and records the Bom as what it installed).
 */
export interface PayloadEntry {
  /** "." for the install location itself, else "./usr/local/bin/localsign" and so on. */
  path: string;
  type: 'dir' | 'file' | 'link';
  /** Permission bits only (0o755); the type bits come from `type`. */
  mode: number;
  uid: number;
  gid: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** A file's bytes, or a link's target; empty for a directory. */
  data: Buffer;
}

export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;

export function fullMode(e: PayloadEntry): number {
  return (e.type === 'dir' ? S_IFDIR : e.type === 'link' ? S_IFLNK : S_IFREG) | e.mode;
}

/**
 * Every parent listed before its children, no path twice: installd creates what the archive
 * lists, and the Bom's tree needs each parent's entry.
 */
export function checkPayloadTree(entries: readonly PayloadEntry[]): void {
  const seen = new Map<string, PayloadEntry>();
  for (const e of entries) {
    if (seen.has(e.path)) throw new Error(`${e.path} is listed twice`);
    if (e.path !== '.') {
      if (!e.path.startsWith('./') || e.path.endsWith('/') || e.path.split('/').some((p, i) => i > 0 && (p === '' || p === '.' || p === '..'))) throw new Error(`${e.path}: not a plain ./relative path`);
      const parent = e.path.slice(0, e.path.lastIndexOf('/'));
      if (seen.get(parent)?.type !== 'dir') throw new Error(`${e.path}: its parent ${parent} is not listed before it as a directory`);
    }
    seen.set(e.path, e);
  }
  if (!seen.has('.')) throw new Error('"." is not listed');
}
