import { join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from '../store/atomic-file';
import { rmSync } from 'node:fs';

/**
 * `service.json` in the config dir: where the service of this dir listens, written by `serve`
 * once it is listening and removed when it stops. `status` and the commands that call the
 * service read it, so a service on another port than 8300 is found without flags (issue 11:
 * `status` looked at 8300 only). A file left by a killed service names a dead pid; readers check.
 */
export interface ServiceFile {
  pid: number;
  url: string;
  started_at: string;
}

export const serviceFilePath = (home: string) => join(home, 'service.json');

export function writeServiceFile(home: string, info: ServiceFile): void {
  writeFileAtomic(serviceFilePath(home), JSON.stringify(info, null, 2) + '\n');
}

export function removeServiceFile(home: string, pid: number): void {
  // Only our own: a second start that failed must not remove the running service's file.
  if (readServiceFile(home)?.pid === pid) rmSync(serviceFilePath(home), { force: true });
}

/** The file's content when its process is alive, else null. */
export function readServiceFile(home: string): ServiceFile | null {
  const raw = readFileIfExists(serviceFilePath(home));
  if (!raw) return null;
  try {
    const info = JSON.parse(raw.toString('utf8')) as ServiceFile;
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
