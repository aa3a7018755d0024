/**
 * An error the operating system gave, in words (`cannot read nope.pdf: ENOENT` tells a user
 * nothing). The code stays in parentheses, for a search or a support ticket. Anything without a
 * known code keeps its own message.
 */
const WORDS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  EEXIST: 'it already exists',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EIO: 'the disk could not be read or written',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on this machine',
  EBUSY: 'the file is in use',
  ELOOP: 'a symbolic link where none is allowed, or too many links',
  ENAMETOOLONG: 'the name is too long',
  ETXTBSY: 'the file is in use',
  EFBIG: 'the file is too large',
};

export function osErrorInWords(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && WORDS[code]) return `${WORDS[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}
