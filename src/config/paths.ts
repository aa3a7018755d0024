import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../domain/errors';
import { assertHomeUsable } from './home-owner';
import { refuseLinks } from './home-safety';
import { checkPrivateAcl, protectDir, type AclDeps } from './windows-acl';

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
const SECRET_FILES = ['pairing.json', 'wrappers.json', 'soft-chip.json', 'embedded.json', 'demo-key.json'];

/** Tests run the Windows branch on Linux with a stand-in for icacls/whoami. */
export interface HomeOptions {
  platform?: NodeJS.Platform;
  acl?: AclDeps;
}

/**
 * Creates the config dir (0700; on Windows an ACL for the user alone, windows-acl.ts) and its
 * subfolders; fixes nothing silently on an existing dir.
 */
export function ensureHome(home: string, options: HomeOptions = {}): HomePaths {
  const paths = homePaths(home);
  assertHomeUsable(home, options.platform);
  const existed = exists(home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!existed) {
    // Before anything is created inside, so results/, work/ and every file inherit it.
    if ((options.platform ?? process.platform) === 'win32') protectDir(home, options.acl);
    else chmodSync(home, 0o700);
  }
  // Before the folders are made: mkdir would take a link to a folder for the folder.
  refuseLinks(paths);
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
 * (clear message naming the path and the fix)". POSIX: the modes. Windows: the ACLs, read with
 * icacls (windows-acl.ts). Returns warnings: an ACL that could not be read at all (wine) is said,
 * not refused.
 */
export function assertPrivateHome(home: string, options: HomeOptions = {}): string[] {
  if (!exists(home)) return [];
  assertHomeUsable(home, options.platform);
  if ((options.platform ?? process.platform) === 'win32') {
    const verdict = checkPrivateAcl(home, SECRET_FILES, options.acl);
    if (verdict.kind === 'unverifiable') return [`could not check who can read ${home}: ${verdict.reason}`];
    if (verdict.kind === 'exposed') {
      throw new ConfigurationError(`${verdict.path} is accessible by other users (its ACL lets ${verdict.readers} read it); fix it with: ${verdict.fix}`);
    }
    return [];
  }
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
  return [];
}
