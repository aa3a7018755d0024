import { execFileSync } from 'node:child_process';

/** One line of `bsdtar -tv --numeric-owner` (ls -l style), read back into numbers. */
export interface Listed {
  path: string;
  type: 'file' | 'dir' | 'link';
  /** Permission bits with setuid, setgid and sticky (07777). */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  link: string;
}

function modeBits(s: string): number {
  let bits = 0;
  const at = (i: number, bit: number) => (s[i] !== '-' && s[i] !== 'S' && s[i] !== 'T' ? bit : 0);
  bits |= at(1, 0o400) | at(2, 0o200) | at(3, 0o100) | at(4, 0o040) | at(5, 0o020) | at(6, 0o010) | at(7, 0o004) | at(8, 0o002) | at(9, 0o001);
  if ('sS'.includes(s[3]!)) bits |= 0o4000;
  if ('sS'.includes(s[6]!)) bits |= 0o2000;
  if ('tT'.includes(s[9]!)) bits |= 0o1000;
  return bits;
}

/** An archive (any format bsdtar reads; "-" with `input` for stdin) as bsdtar lists it. */
export function bsdtarList(archive: string, input?: Buffer): Listed[] {
  const out = execFileSync('bsdtar', ['-tv', '--numeric-owner', '-f', archive], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^(\S{10})\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+\s+\d+\s+\S+\s+(.*)$/.exec(line);
      if (!m) throw new Error(`bsdtar line not understood: ${line}`);
      const [, mode, uid, gid, size, rest] = m as unknown as [string, string, string, string, string, string];
      const type = mode[0] === 'd' ? 'dir' : mode[0] === 'l' ? 'link' : mode[0] === '-' ? 'file' : (() => { throw new Error(`unexpected type in ${line}`); })();
      const [path, link] = type === 'link' ? (rest.split(' -> ') as [string, string]) : [rest, ''];
      return { path, type, mode: modeBits(mode), uid: Number(uid), gid: Number(gid), size: Number(size), link };
    });
}
