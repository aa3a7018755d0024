import { createHash } from 'node:crypto';
import { chmodSync, unlinkSync } from 'node:fs';
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

/** Where the lock lives: in the config dir, else (too deep a path for a socket) in the temp dir. */
export function instanceSocketPaths(home: string): string[] {
  const elsewhere = join(tmpdir(), `localsign-${hashOf(home)}.sock`);
  if (process.platform === 'win32') return [`\\\\.\\pipe\\localsign-${hashOf(home)}`];
  // sun_path holds 104 bytes on macOS, 108 on Linux.
  const inHome = join(home, 'serve.sock');
  return Buffer.byteLength(inHome) < 100 ? [inHome, elsewhere] : [elsewhere];
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
  const [path, fallback] = instanceSocketPaths(home) as [string, string | undefined];
  try {
    return await lockAt(path, home);
  } catch (error) {
    // A config dir on a file system without sockets (some network or Windows-backed mounts).
    const code = (error as NodeJS.ErrnoException).code;
    if (fallback && code !== undefined && ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EINVAL'].includes(code)) return lockAt(fallback, home);
    throw error;
  }
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
