import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { ConfigurationError } from '../domain/errors';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

function holderAlive(lockPath: string): boolean {
  try {
    const pid = Number(readFileSync(lockPath, 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Cross-process mutual exclusion for read-modify-write of a shared JSON file (two CLIs creating
 * wrappers at once must not lose one). O_EXCL create; a lock whose holder died is taken over.
 * Held for microseconds, so a synchronous wait is fine.
 */
export function withFileLock<T>(lockPath: string, fn: () => T, timeoutMs = 5000): T {
  const deadline = Date.now() + timeoutMs;
  let fd: number | null = null;
  while (fd === null) {
    try {
      fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(lockPath)) {
        try {
          unlinkSync(lockPath);
        } catch {
          /* someone else took it over */
        }
        continue;
      }
      if (Date.now() > deadline) throw new ConfigurationError(`config dir is locked by another process (${lockPath})`);
      sleep(5);
    }
  }
  try {
    return fn();
  } finally {
    closeSync(fd);
    try {
      unlinkSync(lockPath);
    } catch {
      /* removed by a takeover */
    }
  }
}
