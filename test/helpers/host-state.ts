import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * What a test must never change on the machine that runs it (issue 19: as root, `npm test` ran
 * `dpkg -i` on the .deb and created a system user): its users, its groups and its installed
 * packages. Read before the run and after it (test/global-setup.ts), and around the installer
 * tests themselves.
 */
export interface HostState {
  /** passwd and group entries by name: `name:uid:gid:home:shell` / `name:gid`. */
  users: string[];
  groups: string[];
  /** `name version status` for every package dpkg knows; empty where there is no dpkg. */
  packages: string[];
}

const entries = (file: string, fields: number[]): string[] => {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.includes(':'))
    .map((l) => {
      const f = l.split(':');
      return fields.map((i) => f[i] ?? '').join(':');
    })
    .sort();
};

export function readHostState(root = '/'): HostState {
  const at = (p: string) => (root === '/' ? p : `${root}${p}`);
  const dpkg = spawnSync('dpkg-query', ['--admindir', at('/var/lib/dpkg'), '-W', '-f', '${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n'], { encoding: 'utf8' });
  return {
    users: entries(at('/etc/passwd'), [0, 2, 3, 5, 6]),
    groups: entries(at('/etc/group'), [0, 2]),
    packages: dpkg.status === 0 ? dpkg.stdout.split('\n').filter(Boolean).map((l) => l.trimEnd()).sort() : [],
  };
}

/** Each difference as words ("user localsign added: …"); empty when the machine is as it was. */
export function hostChanges(before: HostState, after: HostState): string[] {
  const changes: string[] = [];
  const diff = (what: string, a: string[], b: string[], key: (e: string) => string) => {
    const old = new Map(a.map((e) => [key(e), e]));
    const now = new Map(b.map((e) => [key(e), e]));
    for (const [k, e] of now) {
      if (!old.has(k)) changes.push(`${what} ${k} added: ${e}`);
      else if (old.get(k) !== e) changes.push(`${what} ${k} changed: ${old.get(k)} -> ${e}`);
    }
    for (const [k, e] of old) if (!now.has(k)) changes.push(`${what} ${k} removed: ${e}`);
  };
  const name = (e: string) => e.split(':')[0]!;
  diff('user', before.users, after.users, name);
  diff('group', before.groups, after.groups, name);
  // name:architecture, as multiarch installs one package for several.
  diff('package', before.packages, after.packages, (e) => e.split(' ')[0]!);
  return changes;
}
