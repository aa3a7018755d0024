import { accessSync, constants, statSync } from 'node:fs';
import { ConfigurationError } from '../domain/errors';

/** The parts of `process` this needs; tests pass a stand-in to check the order of the calls. */
export interface Identity {
  getuid?: () => number;
  setuid?: (id: number) => void;
  setgid?: (id: number) => void;
  setgroups?: (groups: number[]) => void;
}

/**
 * An administrator's `sudo localsign wrapper:create` against the system service's dir (owned by
 * the `localsign` user, 0700): every file it writes is replaced by rename (store/atomic-file.ts),
 * so run as root it would leave wrappers.json owned by root, 0600, and the service could no longer
 * read it. So a root CLI becomes the owner of the config dir before it opens anything, and what it
 * writes is the service's ("wrapper:create run by an administrator then works against the
 * running service"). Groups first, then gid, then uid: once uid is dropped, nothing else can be.
 */
export function adoptHomeOwner(home: string, identity: Identity = process): number | null {
  if (!identity.getuid || !identity.setuid || !identity.setgid || identity.getuid() !== 0) return null;
  let owner: { uid: number; gid: number };
  try {
    owner = statSync(home);
  } catch {
    return null; // created below by whoever runs the command
  }
  if (owner.uid === 0) return null;
  identity.setgroups?.([owner.gid]);
  identity.setgid(owner.gid);
  identity.setuid(owner.uid);
  return owner.uid;
}

/**
 * A config dir this user cannot use (the service's, for a user who is not an administrator) is one
 * clear line naming the dir and the ways out, not an EACCES on the first file read.
 */
export function assertHomeUsable(home: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') return; // ACLs: windows-acl.ts
  try {
    statSync(home);
    accessSync(home, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // created by the caller
    throw new ConfigurationError(
      `this user cannot use the config dir ${home}: run the command as an administrator (sudo localsign …), or pass --home DIR (or LOCALSIGN_HOME) for a dir of your own`,
    );
  }
}
