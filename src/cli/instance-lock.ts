import { createHash } from 'node:crypto';
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../domain/errors';

/**
 * One `serve` per config dir. Two services on one dir share requests.jsonl: the second one's
 * start-up compaction renames the journal under the first one's open file (whose later appends
 * then go to a deleted file: acknowledged requests lost at the next restart) and resumes the
 * first one's PENDING requests (signed twice). That happened even when the second start then
 * failed on a busy port, so the check comes before anything touches the dir.
 *
 * The lock is a listening local socket, not a pid file: the kernel releases it when the process
 * dies (kill -9 included), and a pid reused after a reboot cannot block a start.
 */

const hashOf = (home: string) => createHash('sha256').update(home).digest('hex').slice(0, 16);

/** sun_path holds 108 bytes on Linux, 104 on macOS, the final NUL included. */
const SOCKET_PATH_MAX = 100;

/**
 * Where the lock lives: `serve.sock` in the config dir, a place only the dir's owner can write.
 * A dir too deep for a socket path is reached on Linux through the descriptor of the open dir
 * (`/proc/self/fd/N/serve.sock`: the kernel binds in the dir itself), never in the shared temp dir,
 * where another user could take a socket at the same computable name first and keep `serve` from
 * starting. On macOS the temp dir is the user's own (`/var/folders/…/T`), so it may serve; on
 * Windows a named pipe. `dirFd` is the open dir the path goes through, to be closed with the lock.
 */
export function instanceSocketPath(home: string, openDir: (dir: string) => number = (dir) => openSync(dir, 'r')): { path: string; dirFd: number | null } {
  if (process.platform === 'win32') return { path: `\\\\.\\pipe\\localsign-${hashOf(home)}`, dirFd: null };
  const inHome = join(home, 'serve.sock');
  if (Buffer.byteLength(inHome) < SOCKET_PATH_MAX) return { path: inHome, dirFd: null };
  if (process.platform === 'linux') {
    const dirFd = openDir(home);
    return { path: `/proc/self/fd/${dirFd}/serve.sock`, dirFd };
  }
  return { path: join(tmpdir(), `localsign-${hashOf(home)}.sock`), dirFd: null };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Whether a live process listens on `path` (a socket file left by a dead one refuses). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface InstanceLock {
  release(): Promise<void>;
}

export async function acquireInstanceLock(home: string): Promise<InstanceLock> {
  const { path, dirFd } = instanceSocketPath(home);
  try {
    const lock = await lockAt(path, home).catch((error: unknown) => {
      // A config dir on a file system without sockets (some network or Windows-backed mounts).
      const code = (error as NodeJS.ErrnoException).code;
      if (code === undefined || !['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EINVAL'].includes(code) || process.platform === 'win32') throw error;
      return lockAt(join(privateTempDir(), `localsign-${hashOf(home)}.sock`), home);
    });
    return { release: () => lock.release().finally(() => dirFd !== null && closeSync(dirFd)) };
  } catch (error) {
    if (dirFd !== null) closeSync(dirFd);
    throw error;
  }
}

/**
 * This user's own folder in the temp dir (`localsign-<uid>`, 0700, as tmux keeps its sockets): the
 * lock of a config dir whose file system has no sockets. A folder of that name that another user
 * made, or that others can enter, is refused by name rather than used.
 */
function privateTempDir(): string {
  const dir = join(tmpdir(), `localsign-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) {
    throw new ConfigurationError(`${dir} is not a folder of this user's alone (another user may have made it); remove it, or keep the config dir on a file system with sockets`);
  }
  return dir;
}

function runningElsewhere(home: string): ConfigurationError {
  return new ConfigurationError(`another localsign serve is running on the config dir ${home}; stop it first`);
}

async function lockAt(path: string, home: string): Promise<InstanceLock> {
  // A second server on a Windows named pipe is refused only through FILE_FLAG_FIRST_PIPE_INSTANCE,
  // which wine ignores: there a second `serve` listened too, then renamed the journal under the
  // first one's open file (EPERM). Asking the pipe first closes that gap; the flag still guards
  // the moment between the two steps on real Windows.
  if (process.platform === 'win32' && (await answers(path))) throw runningElsewhere(home);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const server = createServer((socket) => socket.end());
    try {
      await listen(server, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      if (await answers(path)) throw runningElsewhere(home);
      try {
        unlinkSync(path); // left by a service that was killed: take it over
      } catch {
        /* another start took it over first; the next attempt sees its socket */
      }
      continue;
    }
    if (process.platform !== 'win32') chmodSync(path, 0o600); // CONTRACT: every file in the dir 0600
    server.unref();
    return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  throw new ConfigurationError(`could not take the service lock ${path}; remove it if no localsign serve is running`);
}
