import { join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from '../store/atomic-file';
import { rmSync } from 'node:fs';

/**
 * `serve.json` in the config dir: where the service of this dir listens, written by `serve`
 * once it is listening and removed when it stops. `status` and the commands that call the
 * service read it, so a service on another port than 8300 is found without flags. A file left
 * by a killed service names a dead pid; readers check.
 */
export interface ServeFile {
  pid: number;
  url: string;
  started_at: string;
}

/**
 * Not `service.json`: that name is the installed service's settings file (config/service-file.ts),
 * which on Windows lives in the same folder as the data, %ProgramData%\localsign.
 */
export const serveFilePath = (home: string) => join(home, 'serve.json');

export function writeServeFile(home: string, info: ServeFile): void {
  writeFileAtomic(serveFilePath(home), JSON.stringify(info, null, 2) + '\n');
}

export function removeServeFile(home: string, pid: number): void {
  // Only our own: a second start that failed must not remove the running service's file.
  if (readServeFile(home)?.pid === pid) rmSync(serveFilePath(home), { force: true });
}

/** The file's content when its process is alive, else null. */
export function readServeFile(home: string): ServeFile | null {
  const raw = readFileIfExists(serveFilePath(home));
  if (!raw) return null;
  try {
    const info = JSON.parse(raw.toString('utf8')) as ServeFile;
    if (typeof info.url !== 'string' || !Number.isSafeInteger(info.pid)) return null;
    return isAlive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else (still alive).
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
