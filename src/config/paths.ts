import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../errors/errors';

/** Every file of the config dir, named once. */
export function homePaths(home: string) {
  return {
    home,
    pairing: join(home, 'pairing.json'),
    wrappers: join(home, 'wrappers.json'),
    cache: join(home, 'cache.json'),
    designs: join(home, 'designs.json'),
    embedded: join(home, 'embedded.json'),
    softChip: join(home, 'soft-chip.json'),
    requestsJournal: join(home, 'requests.jsonl'),
    results: join(home, 'results'),
    work: join(home, 'work'),
    errorsJsonl: join(home, 'errors.jsonl'),
    errorsLog: join(home, 'errors.log'),
    serviceLog: join(home, 'service.log'),
    audit: join(home, 'audit.jsonl'),
    lock: join(home, '.lock'),
  };
}
export type HomePaths = ReturnType<typeof homePaths>;

/** Files holding secrets: the service refuses to start when others can read them (CONTRACT Security). */
const SECRET_FILES = ['pairing.json', 'wrappers.json', 'soft-chip.json', 'embedded.json'];

const isWindows = process.platform === 'win32';

/** Creates the config dir (0700) and its subfolders; fixes nothing silently on an existing dir. */
export function ensureHome(home: string): HomePaths {
  const paths = homePaths(home);
  const existed = exists(home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!existed && !isWindows) chmodSync(home, 0o700);
  for (const dir of [paths.results, paths.work]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  return paths;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * CONTRACT: "refuses to start when its config dir or a secret file is readable by other users
 * (clear message naming the path and the fix)". POSIX modes only; Windows relies on the profile ACL.
 */
export function assertPrivateHome(home: string): void {
  if (isWindows || !exists(home)) return;
  const check = (path: string, fix: string) => {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) {
      throw new ConfigurationError(
        `${path} is accessible by other users (mode ${mode.toString(8).padStart(3, '0')}); fix it with: ${fix}`,
      );
    }
  };
  check(home, `chmod 700 ${home}`);
  for (const name of readdirSync(home)) {
    if (SECRET_FILES.includes(name)) check(join(home, name), `chmod 600 ${join(home, name)}`);
  }
}
