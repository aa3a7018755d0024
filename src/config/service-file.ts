import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, win32 } from 'node:path';
import { ConfigurationError } from '../domain/errors';

/**
 * The installed service's settings file: where the CLI finds the service's config dir without
 * flags ("the CLI and the service use different dirs" is what users of similar agents
 * complain about most). The service reads the same file the same way, so both agree by
 * construction: `localsign serve` in the unit, `localsign wrapper:create` by an administrator.
 *
 * Consulted only when neither --home nor LOCALSIGN_HOME is given; flags and environment
 * variables still win over its port and host (CONTRACT "listen": flags > env > defaults).
 */
export interface ServiceFile {
  /** The system service's config dir: /var/lib/localsign, %ProgramData%\localsign, … */
  home: string;
  port?: number;
  host?: string;
}

/**
 * Where it lives: a fixed place an administrator can find. POSIX: /etc/localsign (read-only to
 * the hardened unit, ProtectSystem=strict). Windows: beside the data in %ProgramData%\localsign,
 * whose ACL (SYSTEM and Administrators) keeps a non-elevated CLI on its own ~\.localsign.
 */
export function serviceFilePath(platform: NodeJS.Platform, programData: string | undefined): string | null {
  if (platform === 'win32') return programData ? win32.join(programData, 'localsign', 'service.json') : null;
  return '/etc/localsign/service.json';
}

/** null when there is none (no system service installed, or not readable by this user). */
export function readServiceFile(path: string): ServiceFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return null;
    throw error;
  }
  return parseServiceFile(path, text);
}

export function parseServiceFile(path: string, text: string): ServiceFile {
  const bad = (what: string) =>
    new ConfigurationError(`${path} is not a valid localsign service file (${what}); fix it or remove it, or pass --home`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  if (typeof raw !== 'object' || raw === null) throw bad('not an object');
  const { home, port, host } = raw as Record<string, unknown>;
  if (typeof home !== 'string' || !(isAbsolute(home) || win32.isAbsolute(home))) throw bad('"home" must be an absolute path');
  if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535)) throw bad('"port" must be an integer from 1 to 65535');
  if (host !== undefined && (typeof host !== 'string' || host === '')) throw bad('"host" must be a non-empty string');
  return { home, ...(port === undefined ? {} : { port: port as number }), ...(host === undefined ? {} : { host: host as string }) };
}

/** Written by `service install` (temp + rename: a reader sees the old file or the new one). */
export function writeServiceFile(path: string, file: ServiceFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const tmp = join(dirname(path), `.service.json.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(file, null, 2) + '\n', { mode: 0o644 });
  renameSync(tmp, path);
}

export function removeServiceFile(path: string): void {
  rmSync(path, { force: true });
}
